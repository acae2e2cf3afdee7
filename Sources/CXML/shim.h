// libxml2's reader and tree, for reading SOAP (ONVIF): Foundation's XMLParser traps on some malformed input.
// Debian builds libxml2 with ICU; its headers would then pull in the system's ICU, whose declarations clash with
// Foundation's own copy. Nothing here uses libxml2's encoding handlers (the only structs that change), so the
// ICU parts are left out.
#include <libxml/xmlversion.h>
#undef LIBXML_ICU_ENABLED
#include <libxml/parser.h>
#include <libxml/tree.h>
