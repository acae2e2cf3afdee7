#define _GNU_SOURCE /* memfd_create */
#include "CRTSPServer.h"
#include "CGStreamerShim.h"
#include <gst/app/gstappsrc.h>
#include <gst/base/gstbasesink.h>
#include <gst/rtsp-server/rtsp-server.h>
#include <gst/rtsp-server/rtsp-onvif-server.h>
#include <gst/rtsp-server/rtsp-onvif-media-factory.h>
#include <gst/rtsp-server/rtsp-onvif-media.h>
#include <string.h>
#include <errno.h>
#include <sys/mman.h>
#include <unistd.h>

struct ApplRtspServer {
    GMainContext *context;
    GMainLoop *loop;
    GThread *thread;
    GstRTSPServer *server;
    GSource *source;
    gint clients;
    GMutex lock;
    /* Under `lock`: the media that exist now (Feed*, newest first): the shared one, and one of its own for each
     * client that asked for the ONVIF backchannel (gst-rtsp-server never shares those). Each is fed every push. */
    GList *feeds;
    guint next_feed_id;
    /* Under `lock`: appsrc name → the caps of what is pushed into it, set on each media as it is configured. */
    GHashTable *caps;
    ApplRtspHandlers handlers;
    struct ServerLink *link;
    /* The access rules (always set) and the account names whose Digest entries `appl_rtsp_server_set_users` added,
     * so that the next call removes them first (the token_file's user is not among them). */
    GstRTSPAuth *auth;
    GPtrArray *account_names;
};

/* One media fed by the pushes. */
typedef struct {
    guint id;
    /* The mount it serves (its index in `appl_rtsp_server_start`'s paths): pushes to that mount reach it. */
    guint mount;
    /* The media's bin (a reference, kept until it is unprepared). */
    GstElement *element;
    /* name → that media's appsrc (a reference; NULL for a name it lacks), looked up at the first push of each name. */
    GHashTable *sources;
    /* The shift from the caller's timestamps to this media's running time (set by the first buffer pushed into it). */
    gboolean shift_known;
    gint64 shift;
    /* Audio frames already mapped onto the media's running time, waiting to go in as one list. */
    GstBufferList *held_audio;
    /* The client's voice (the ONVIF backchannel, decoded): owned by the backchannel's appsink; NULL without one. */
    ApplRelay *talk;
} Feed;

/* What the media's hold shares with the server. A shared media is unprepared and finalised on gst-rtsp-server's
 * pool threads and can outlive the server (once, in a test, right after `stop`: its hold called the caller's
 * handlers, already freed, and the freed server: a crash). The hold reaches the server only through this, under
 * `lock`, and only while `server` is set; `stop` ends the holds still open while the caller's handlers are valid,
 * then clears it. Freed by the last of the server and the holds. */
typedef struct ServerLink {
    gint refs;
    GMutex lock;
    struct ApplRtspServer *server; /* NULL once stopped */
    GList *holds;                  /* the holds not yet released */
} ServerLink;

static ServerLink *link_new(struct ApplRtspServer *s) {
    ServerLink *link = g_new0(ServerLink, 1);
    link->refs = 1;
    g_mutex_init(&link->lock);
    link->server = s;
    return link;
}

static ServerLink *link_ref(ServerLink *link) {
    g_atomic_int_inc(&link->refs);
    return link;
}

static void link_unref(ServerLink *link) {
    if (!link || !g_atomic_int_dec_and_test(&link->refs)) return;
    g_list_free(link->holds);
    g_mutex_clear(&link->lock);
    g_free(link);
}

/* One media's hold on the stream: released once, at "unprepared", when the media goes or when the server stops,
 * whichever comes first. */
typedef struct {
    ServerLink *link;
    guint mount;
    gboolean released; /* under link->lock */
} MediaHold;

static void release_hold(MediaHold *hold) {
    ServerLink *link = hold->link;
    g_mutex_lock(&link->lock);
    if (!hold->released) {
        hold->released = TRUE;
        link->holds = g_list_remove(link->holds, hold);
        ApplRtspServer *s = link->server;
        if (s && s->handlers.media_stopped) s->handlers.media_stopped(hold->mount, s->handlers.user);
    }
    g_mutex_unlock(&link->lock);
}

static void on_media_finalized(gpointer data, GObject *gone) {
    (void)gone;
    MediaHold *hold = data;
    release_hold(hold);
    link_unref(hold->link);
    g_free(hold);
}

/* The key of the caps table: "<mount>/<appsrc name>". */
static gchar *caps_key(guint mount, const char *name) { return g_strdup_printf("%u/%s", mount, name); }

static void apply_caps_to(GstElement *element, const char *name, GstCaps *caps) {
    GstElement *src = gst_bin_get_by_name(GST_BIN(element), name);
    if (!src) return;
    g_object_set(src, "caps", caps, NULL);
    gst_object_unref(src);
}

/* A caps table entry onto a new media of `feed`'s mount (g_hash_table_foreach). */
static void apply_caps(gpointer key, gpointer value, gpointer data) {
    Feed *feed = data;
    const char *slash = strchr(key, '/');
    if (!slash || (guint)g_ascii_strtoull(key, NULL, 10) != feed->mount) return;
    apply_caps_to(feed->element, slash + 1, value);
}

/* The mount a factory serves (set when it was made). */
#define MOUNT_KEY "appliance-mount"
static guint factory_mount(GstRTSPMediaFactory *factory) {
    return factory ? GPOINTER_TO_UINT(g_object_get_data(G_OBJECT(factory), MOUNT_KEY)) : 0;
}

/* A client's signals come on gst-rtsp-server's pool threads and can come after `stop` freed the server and the
 * caller's handlers (seen under MALLOC_PERTURB_: a PLAY handled on a pool thread while the server stopped called the
 * freed handlers). They reach the server through its link, under its lock, only while it is set. */
static void on_client_closed(GstRTSPClient *client, gpointer data) {
    (void)client;
    ServerLink *link = data;
    g_mutex_lock(&link->lock);
    if (link->server) g_atomic_int_add(&link->server->clients, -1);
    g_mutex_unlock(&link->lock);
}

static void on_play_request(GstRTSPClient *client, GstRTSPContext *context, gpointer data) {
    (void)client;
    ServerLink *link = data;
    guint mount = factory_mount(context ? context->factory : NULL);
    g_mutex_lock(&link->lock);
    ApplRtspServer *s = link->server;
    if (s && s->handlers.client_playing) s->handlers.client_playing(mount, s->handlers.user);
    g_mutex_unlock(&link->lock);
}

static void unref_link(gpointer data, GClosure *closure) {
    (void)closure;
    link_unref(data);
}

static void on_client_connected(GstRTSPServer *server, GstRTSPClient *client, gpointer data) {
    (void)server;
    ApplRtspServer *s = data;
    g_atomic_int_inc(&s->clients);
    g_signal_connect_data(client, "closed", G_CALLBACK(on_client_closed), link_ref(s->link), unref_link, 0);
    g_signal_connect_data(client, "play-request", G_CALLBACK(on_play_request), link_ref(s->link), unref_link, 0);
}

/* The shift goes with the media it was read from, and so do audio frames mapped with it. Call under `lock`. */
static void forget_shift(Feed *f) {
    f->shift_known = FALSE;
    g_clear_pointer(&f->held_audio, gst_buffer_list_unref);
}

static void unref_source(gpointer source) {
    if (source) gst_object_unref(source);
}

/* The appsrc `name` of the feed's media (a new reference), or NULL. Call under `lock`. */
static GstElement *media_source(Feed *f, const char *name) {
    gpointer found = NULL;
    if (!g_hash_table_lookup_extended(f->sources, name, NULL, &found)) {
        found = gst_bin_get_by_name(GST_BIN(f->element), name);
        g_hash_table_insert(f->sources, g_strdup(name), found);
    }
    return found ? gst_object_ref(found) : NULL;
}

static void free_feed(Feed *f) {
    if (f->talk) appl_relay_set_target(f->talk, NULL);
    forget_shift(f);
    g_hash_table_unref(f->sources);
    gst_object_unref(f->element);
    g_free(f);
}

/* Drops the feed of `only` (every feed when NULL); returns the ids of those that had a backchannel, for the caller
 * to report (g_array_unref it). */
static GArray *forget_media(ApplRtspServer *s, GstElement *only) {
    GArray *talkers = g_array_new(FALSE, FALSE, sizeof(guint));
    g_mutex_lock(&s->lock);
    for (GList *l = s->feeds; l;) {
        GList *next = l->next;
        Feed *f = l->data;
        if (only == NULL || f->element == only) {
            if (f->talk) g_array_append_val(talkers, f->id);
            free_feed(f);
            s->feeds = g_list_delete_link(s->feeds, l);
        }
        l = next;
    }
    g_mutex_unlock(&s->lock);
    return talkers;
}

static void on_media_unprepared(GstRTSPMedia *media, gpointer data) {
    MediaHold *hold = data;
    GstElement *element = gst_rtsp_media_get_element(media);
    g_mutex_lock(&hold->link->lock);
    ApplRtspServer *s = hold->link->server;
    if (s) {
        GArray *talkers = forget_media(s, element);
        for (guint i = 0; i < talkers->len; i++) {
            if (s->handlers.talk) s->handlers.talk(g_array_index(talkers, guint, i), FALSE, s->handlers.user);
        }
        g_array_unref(talkers);
    }
    g_mutex_unlock(&hold->link->lock);
    gst_object_unref(element);
    release_hold(hold);
}

/* Audio frames per batch: 4 AAC frames are 85 ms at 48 kHz, which an NVR's or player's buffer never notices. They
 * go into the media's appsrc together (its thread wakes once for them) and leave its payloader as one list. */
#define AUDIO_FRAMES_PER_SEND 4
/* The media's audio appsrc, as RTSPFeed's launch description names it. */
#define AUDIO_STREAM "audio"
/* The ONVIF backchannel (Profile T's audio output): what a client that asks for it (`Require:
 * www.onvif.org/ver20/backchannel`) may send, G.711 µ-law as ONVIF requires of every device, decoded to the talk
 * format (48 kHz mono) for the speaker. The depayloader's caps are what the SDP offers; the sink must not wait for
 * preroll (the media prepares before anything is sent). */
#define BACKCHANNEL_SINK "backchannel"
#define BACKCHANNEL_LAUNCH "( capsfilter caps=\"application/x-rtp,media=audio,payload=0,clock-rate=8000,encoding-name=PCMU\" " \
    "name=depay_backchannel ! rtppcmudepay ! mulawdec ! audioconvert ! audioresample ! " \
    "audio/x-raw,format=S16LE,layout=interleaved,rate=48000,channels=1 ! " \
    "appsink name=" BACKCHANNEL_SINK " sync=false async=false max-buffers=50 drop=true enable-last-sample=false )"

/* Each frame leaves the payloader as one buffer list (rtp_batch.c), so gst-rtsp-server's send thread wakes and each
 * TCP client gets one write per frame, not one per NAL unit; audio goes a few frames at a time. */
static void batch_payloader(GstElement *element, const char *name, guint max_packets, gboolean per_frame) {
    GstElement *pay = gst_bin_get_by_name(GST_BIN(element), name);
    if (!pay) return;
    GstPad *src = gst_element_get_static_pad(pay, "src");
    if (src) {
        appl_pad_add_rtp_batcher(src, max_packets, per_frame);
        gst_object_unref(src);
    }
    gst_object_unref(pay);
}

/* A client's sinks join the media's pipeline without asynchronous state changes. gst-rtsp-server plays a live media
 * from its DESCRIBE on and adds a client's sinks at its PLAY (gst_element_sync_state_with_parent). With its RTP
 * sinks async, the first one added made GstBin lose PLAYING to PAUSED until every sink had prerolled, and a sink
 * added in that window was synced to PAUSED and stayed there once prerolled. As the first sink behind a tee it held
 * that stream's thread in its preroll for ever, a later client's branch (plugged from an IDLE probe on that tee)
 * never came, and the bin never completed: the sound stopped for every client (session 19: gdb stacks and a
 * GST_STATES trace of a stalled run). A live media has nothing to preroll; only RECORD needs async sinks. */
static void on_pipeline_element_added(GstBin *pipeline, GstElement *element, gpointer data) {
    (void)pipeline; (void)data;
    if (GST_IS_BASE_SINK(element)) gst_base_sink_set_async_enabled(GST_BASE_SINK(element), FALSE);
}

static void on_media_configure(GstRTSPMediaFactory *factory, GstRTSPMedia *media, gpointer data) {
    ApplRtspServer *s = data;
    guint mount = factory_mount(factory);
    GstElement *element = gst_rtsp_media_get_element(media); /* transfer full: kept until unprepared */
    GstObject *pipeline = gst_object_get_parent(GST_OBJECT(element));
    if (pipeline) {
        g_signal_connect(pipeline, "element-added", G_CALLBACK(on_pipeline_element_added), NULL);
        gst_object_unref(pipeline);
    }
    batch_payloader(element, "pay0", G_MAXUINT, TRUE);
    batch_payloader(element, "pay1", AUDIO_FRAMES_PER_SEND, FALSE);
    Feed *feed = g_new0(Feed, 1);
    feed->mount = mount;
    feed->element = element;
    feed->sources = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, unref_source);
    GstElement *backchannel = gst_bin_get_by_name(GST_BIN(element), BACKCHANNEL_SINK);
    if (backchannel) {
        feed->talk = appl_relay_attach_new(backchannel);
        gst_object_unref(backchannel);
    }
    g_mutex_lock(&s->lock);
    feed->id = ++s->next_feed_id;
    s->feeds = g_list_prepend(s->feeds, feed);
    g_hash_table_foreach(s->caps, apply_caps, feed);
    g_mutex_unlock(&s->lock);
    MediaHold *hold = g_new0(MediaHold, 1);
    hold->link = link_ref(s->link);
    hold->mount = mount;
    g_mutex_lock(&s->link->lock);
    s->link->holds = g_list_prepend(s->link->holds, hold);
    g_mutex_unlock(&s->link->lock);
    if (s->handlers.media_started) s->handlers.media_started(mount, s->handlers.user);
    if (feed->talk && s->handlers.talk) s->handlers.talk(feed->id, TRUE, s->handlers.user);
    g_signal_connect(media, "unprepared", G_CALLBACK(on_media_unprepared), hold);
    g_object_weak_ref(G_OBJECT(media), on_media_finalized, hold);
}

static gpointer run_loop(gpointer data) {
    ApplRtspServer *s = data;
    g_main_context_push_thread_default(s->context);
    g_main_loop_run(s->loop);
    g_main_context_pop_thread_default(s->context);
    return NULL;
}

static GstRTSPFilterResult close_client(GstRTSPServer *server, GstRTSPClient *client, gpointer data) {
    (void)server; (void)client; (void)data;
    return GST_RTSP_FILTER_REMOVE;
}

/* Every client's requests are handled on the server's own thread (a pool of no client threads), where `stop` also
 * closes them. gst-rtsp-server 1.22's gst_rtsp_client_close is not safe beside the client's own thread: a stop while
 * a client played, closed from the caller's thread under load, unprepared the shared media twice (valgrind: a read
 * of its freed GstRTSPThread in gst_rtsp_thread_stop, after "gst_rtsp_stream_leave_bin: assertion failed"). The
 * default pool has one client thread too, so this costs no parallelism. */
static void serve_clients_on_the_server_thread(GstRTSPServer *server) {
    GstRTSPThreadPool *pool = gst_rtsp_server_get_thread_pool(server);
    gst_rtsp_thread_pool_set_max_threads(pool, 0);
    g_object_unref(pool);
}

/* Runs on the server's thread: closes every client there (see serve_clients_on_the_server_thread), then ends the
 * loop. */
static gboolean close_clients_and_quit(gpointer data) {
    ApplRtspServer *s = data;
    gst_rtsp_server_client_filter(s->server, close_client, NULL);
    g_main_loop_quit(s->loop);
    return G_SOURCE_REMOVE;
}

static void free_server(ApplRtspServer *s) {
    if (s->source) { g_source_destroy(s->source); g_source_unref(s->source); }
    g_clear_object(&s->auth);
    g_clear_pointer(&s->account_names, g_ptr_array_unref);
    if (s->server) g_object_unref(s->server);
    g_array_unref(forget_media(s, NULL));
    g_hash_table_unref(s->caps);
    g_main_loop_unref(s->loop);
    g_main_context_unref(s->context);
    g_mutex_clear(&s->lock);
    link_unref(s->link);
    g_free(s);
}

/* Ends the holds still open (their media may go later, on a pool thread) while the caller's handlers are valid, and
 * cuts every hold off from the server before it is freed. */
static void end_holds(ApplRtspServer *s) {
    ServerLink *link = s->link;
    g_mutex_lock(&link->lock);
    for (GList *l = link->holds; l; l = l->next) {
        MediaHold *hold = l->data;
        hold->released = TRUE;
        if (s->handlers.media_stopped) s->handlers.media_stopped(hold->mount, s->handlers.user);
    }
    g_list_free(link->holds);
    link->holds = NULL;
    link->server = NULL;
    g_mutex_unlock(&link->lock);
}

/* GstRTSPAuth that asks its server's owner before it checks a credential, and tells it what the check found: every
 * request that carries an Authorization header (one without is only being asked for credentials: the 401 challenge
 * every Digest client starts with). The owner's guessing ledger may refuse it unchecked (401). */
/* The server through its link (see on_client_closed): a client's check may run on a pool thread after `stop`. */
typedef struct { GstRTSPAuth parent; ServerLink *link; } ApplRtspAuth;
typedef struct { GstRTSPAuthClass parent_class; } ApplRtspAuthClass;
G_DEFINE_TYPE(ApplRtspAuth, appl_rtsp_auth, GST_TYPE_RTSP_AUTH)

/* The `username="…"` of a Digest Authorization header (NULL for Basic or none), for the caller to g_free. */
static gchar *digest_user(const gchar *authorization) {
    const gchar *start = authorization ? strstr(authorization, "username=\"") : NULL;
    if (!start) return NULL;
    start += strlen("username=\"");
    const gchar *end = strchr(start, '"');
    return end && end - start <= 64 ? g_strndup(start, end - start) : NULL;
}

/* Runs once per request that needs an identity (gst-rtsp-server keeps the token for the rest of the request). With
 * accounts, a passing check is a token other than the default (which is NULL then); without (open), nothing is
 * counted. */
static gboolean appl_rtsp_auth_authenticate(GstRTSPAuth *auth, GstRTSPContext *ctx) {
    GstRTSPAuthClass *parent = GST_RTSP_AUTH_CLASS(appl_rtsp_auth_parent_class);
    ServerLink *link = ((ApplRtspAuth *)auth)->link;
    gchar *authorization = NULL;
    if (!link || !ctx->request || !ctx->client ||
        gst_rtsp_message_get_header(ctx->request, GST_RTSP_HDR_AUTHORIZATION, &authorization, 0) != GST_RTSP_OK) {
        return parent->authenticate(auth, ctx);
    }
    GstRTSPToken *open = gst_rtsp_auth_get_default_token(auth);
    if (open) {  /* no accounts and no password: anyone may watch, no credential is checked */
        gst_rtsp_token_unref(open);
        return parent->authenticate(auth, ctx);
    }
    GstRTSPConnection *connection = gst_rtsp_client_get_connection(ctx->client);
    gchar *client = g_strdup(connection ? gst_rtsp_connection_get_ip(connection) : "unknown");
    gchar *name = digest_user(authorization);
    gboolean admitted = TRUE;
    g_mutex_lock(&link->lock);
    ApplRtspServer *s = link->server;
    if (s && s->handlers.admit) admitted = s->handlers.admit(name, client, s->handlers.user);
    g_mutex_unlock(&link->lock);
    gboolean answered = admitted ? parent->authenticate(auth, ctx) : FALSE;
    if (admitted) {
        g_mutex_lock(&link->lock);
        s = link->server;
        if (s && s->handlers.checked) s->handlers.checked(name, client, answered && ctx->token != NULL, s->handlers.user);
        g_mutex_unlock(&link->lock);
    }
    g_free(name);
    g_free(client);
    return answered;
}

static void appl_rtsp_auth_finalize(GObject *object) {
    link_unref(((ApplRtspAuth *)object)->link);
    G_OBJECT_CLASS(appl_rtsp_auth_parent_class)->finalize(object);
}

static gboolean may_have_backchannel(GstRTSPContext *ctx);

static gboolean appl_rtsp_auth_check(GstRTSPAuth *auth, GstRTSPContext *ctx, const gchar *check) {
    gboolean allowed = GST_RTSP_AUTH_CLASS(appl_rtsp_auth_parent_class)->check(auth, ctx, check);
    if (!allowed || !g_str_equal(check, GST_RTSP_AUTH_CHECK_MEDIA_FACTORY_ACCESS)) return allowed;
    return may_have_backchannel(ctx);
}

static void appl_rtsp_auth_class_init(ApplRtspAuthClass *klass) {
    GST_RTSP_AUTH_CLASS(klass)->authenticate = appl_rtsp_auth_authenticate;
    GST_RTSP_AUTH_CLASS(klass)->check = appl_rtsp_auth_check;
    G_OBJECT_CLASS(klass)->finalize = appl_rtsp_auth_finalize;
}
static void appl_rtsp_auth_init(ApplRtspAuth *self) { (void)self; }

/* The token every user who may watch gets: the mount's "viewer" role; `talk`: may also use the ONVIF backchannel
 * (admins: the speaker is theirs, as Talk in the dashboard is). */
#define TALK_FIELD "appliance.talk"
static GstRTSPToken *viewer_token(gboolean talk) {
    return gst_rtsp_token_new(GST_RTSP_TOKEN_MEDIA_FACTORY_ROLE, G_TYPE_STRING, "viewer", TALK_FIELD, G_TYPE_BOOLEAN, talk, NULL);
}

/* A client that asks for the backchannel (`Require: www.onvif.org/ver20/backchannel`) needs a token that may talk;
 * refused with 403 otherwise (its plain stream stays open to it). */
static gboolean may_have_backchannel(GstRTSPContext *ctx) {
    if (!ctx->factory || !GST_IS_RTSP_ONVIF_MEDIA_FACTORY(ctx->factory)) return TRUE;
    if (!gst_rtsp_onvif_media_factory_requires_backchannel(ctx->factory, ctx)) return TRUE;
    gboolean talk = FALSE;
    const GstStructure *fields = ctx->token ? gst_rtsp_token_get_structure(ctx->token) : NULL;
    if (fields && gst_structure_get_boolean(fields, TALK_FIELD, &talk) && talk) return TRUE;
    if (ctx->response && ctx->request && ctx->client) {
        gst_rtsp_message_init_response(ctx->response, GST_RTSP_STS_FORBIDDEN,
                                       gst_rtsp_status_as_text(GST_RTSP_STS_FORBIDDEN), ctx->request);
        gst_rtsp_client_send_message(ctx->client, ctx->session, ctx->response);
    }
    return FALSE;
}

/* The access rules, always in place (accounts can appear while the server runs): Digest in realm "appliance", for
 * `user` and `password` when given (the token_file's); with `tls_pem` (a certificate chain and its key, PEM) the
 * server speaks TLS (rtsps://). Until `appl_rtsp_server_set_users` says otherwise, without a password everyone gets
 * the viewer's role by default. The caller keeps ownership of its strings. FALSE with *error set when the
 * certificate cannot be read. */
static gboolean set_up_access(ApplRtspServer *s, const char *user, const char *password, const char *tls_pem,
                              char **error) {
    GstRTSPAuth *auth = g_object_new(appl_rtsp_auth_get_type(), NULL);
    ((ApplRtspAuth *)auth)->link = link_ref(s->link);
    gst_rtsp_auth_set_realm(auth, "appliance");
    gst_rtsp_auth_set_supported_methods(auth, GST_RTSP_AUTH_DIGEST);
    GstRTSPToken *token = viewer_token(TRUE); /* the token_file's user is an admin; open (no password): loopback only */
    if (user && password) {
        gst_rtsp_auth_add_digest(auth, user, password, token);
    } else {
        gst_rtsp_auth_set_default_token(auth, token);
    }
    gst_rtsp_token_unref(token);
    if (tls_pem) {
        GError *tls_error = NULL;
        GTlsCertificate *certificate = g_tls_certificate_new_from_pem(tls_pem, -1, &tls_error);
        if (!certificate) {
            *error = g_strdup_printf("the certificate cannot be used for RTSP over TLS: %s", tls_error ? tls_error->message : "unknown error");
            g_clear_error(&tls_error);
            g_object_unref(auth);
            return FALSE;
        }
        gst_rtsp_auth_set_tls_certificate(auth, certificate);
        g_object_unref(certificate);
    }
    gst_rtsp_server_set_auth(s->server, auth);
    s->auth = auth; /* keeps the reference */
    s->account_names = g_ptr_array_new_with_free_func(g_free);
    return TRUE;
}

/* The shared media of mount `mount`, built from `launch`, which the viewer's role may play; `backchannel`: a client
 * may ask for ONVIF's audio backchannel (a media of its own). */
static GstRTSPMediaFactory *mount_factory(ApplRtspServer *s, guint mount, const char *launch, gboolean backchannel) {
    GstRTSPMediaFactory *factory = gst_rtsp_onvif_media_factory_new();
    g_object_set_data(G_OBJECT(factory), MOUNT_KEY, GUINT_TO_POINTER(mount));
    gst_rtsp_media_factory_set_launch(factory, launch);
    gst_rtsp_media_factory_set_media_gtype(factory, GST_TYPE_RTSP_ONVIF_MEDIA);
    if (backchannel) gst_rtsp_onvif_media_factory_set_backchannel_launch(GST_RTSP_ONVIF_MEDIA_FACTORY(factory), BACKCHANNEL_LAUNCH);
    gst_rtsp_media_factory_set_shared(factory, TRUE);
    gst_rtsp_media_factory_set_protocols(factory, GST_RTSP_LOWER_TRANS_UDP | GST_RTSP_LOWER_TRANS_TCP);
    g_signal_connect(factory, "media-configure", G_CALLBACK(on_media_configure), s);
    gst_rtsp_media_factory_add_role(factory, "viewer", GST_RTSP_PERM_MEDIA_FACTORY_ACCESS, G_TYPE_BOOLEAN, TRUE,
                                    GST_RTSP_PERM_MEDIA_FACTORY_CONSTRUCT, G_TYPE_BOOLEAN, TRUE, NULL);
    return factory;
}

/* Adds the `htdigest` lines (`name:realm:HA1`) with `token`; their names go to `account_names`. */
static gboolean add_htdigest(ApplRtspServer *s, const char *htdigest, GstRTSPToken *token, char **error) {
    if (!htdigest || !*htdigest) return TRUE;
    gboolean ok;
    /* gst-rtsp-server reads Digest hashes only from a file: this one lives in memory, never on a disk. */
    int fd = memfd_create("appliance-rtsp-users", MFD_CLOEXEC);
    size_t length = strlen(htdigest);
    if (fd < 0 || write(fd, htdigest, length) != (ssize_t)length) {
        *error = g_strdup_printf("cannot hand the accounts to the RTSP server: %s", g_strerror(errno));
        ok = FALSE;
    } else {
        gchar *path = g_strdup_printf("/proc/self/fd/%d", fd);
        ok = gst_rtsp_auth_parse_htdigest(s->auth, path, token);
        if (!ok) *error = g_strdup("the RTSP server could not read the accounts");
        g_free(path);
        gchar **lines = g_strsplit(htdigest, "\n", -1);
        for (gchar **line = lines; *line; line++) {
            const char *colon = strchr(*line, ':');
            if (colon) g_ptr_array_add(s->account_names, g_strndup(*line, colon - *line));
        }
        g_strfreev(lines);
    }
    if (fd >= 0) close(fd);
    return ok;
}

gboolean appl_rtsp_server_set_users(ApplRtspServer *s, const char *talkers, const char *viewers, gboolean open, char **error) {
    for (guint i = 0; i < s->account_names->len; i++) gst_rtsp_auth_remove_digest(s->auth, g_ptr_array_index(s->account_names, i));
    g_ptr_array_set_size(s->account_names, 0);
    GstRTSPToken *talker = viewer_token(TRUE), *viewer = viewer_token(FALSE);
    gst_rtsp_auth_set_default_token(s->auth, open ? talker : NULL);
    gboolean ok = add_htdigest(s, talkers, talker, error) && add_htdigest(s, viewers, viewer, error);
    gst_rtsp_token_unref(talker);
    gst_rtsp_token_unref(viewer);
    return ok;
}

ApplRtspServer *appl_rtsp_server_start(const char *address, int port, const char *const *paths,
                                       const char *const *launches, guint mounts, const char *user, const char *password,
                                       const char *tls_pem, gboolean backchannel, ApplRtspHandlers handlers, char **error) {
    ApplRtspServer *s = g_new0(ApplRtspServer, 1);
    s->handlers = handlers;
    s->link = link_new(s);
    g_mutex_init(&s->lock);
    s->caps = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, (GDestroyNotify)gst_caps_unref);
    s->context = g_main_context_new();
    s->loop = g_main_loop_new(s->context, FALSE);
    s->server = gst_rtsp_onvif_server_new(); /* its clients understand ONVIF's Require headers (the backchannel) */
    serve_clients_on_the_server_thread(s->server);
    gst_rtsp_server_set_address(s->server, address);
    gchar *service = g_strdup_printf("%d", port);
    gst_rtsp_server_set_service(s->server, service);
    g_free(service);
    g_signal_connect(s->server, "client-connected", G_CALLBACK(on_client_connected), s);

    if (!set_up_access(s, user, password, tls_pem, error)) {
        free_server(s);
        return NULL;
    }
    GstRTSPMountPoints *points = gst_rtsp_server_get_mount_points(s->server);
    for (guint mount = 0; mount < mounts; mount++) {
        /* The backchannel (the speaker) is offered on the first mount only. */
        GstRTSPMediaFactory *factory = mount_factory(s, mount, launches[mount], backchannel && mount == 0);
        gst_rtsp_mount_points_add_factory(points, paths[mount], factory); /* takes the factory */
    }
    g_object_unref(points);

    GError *bind_error = NULL;
    s->source = gst_rtsp_server_create_source(s->server, NULL, &bind_error);
    if (!s->source) {
        *error = g_strdup_printf("cannot listen on %s:%d: %s", address, port, bind_error ? bind_error->message : "unknown error");
        g_clear_error(&bind_error);
        free_server(s);
        return NULL;
    }
    g_source_attach(s->source, s->context);
    s->thread = g_thread_try_new("rtsp-server", run_loop, s, &bind_error);
    if (!s->thread) {
        *error = g_strdup_printf("cannot start the RTSP thread: %s", bind_error ? bind_error->message : "unknown error");
        g_clear_error(&bind_error);
        free_server(s);
        return NULL;
    }
    return s;
}

void appl_rtsp_server_set_caps(ApplRtspServer *s, guint mount, const char *name, GstCaps *caps) {
    g_mutex_lock(&s->lock);
    g_hash_table_replace(s->caps, caps_key(mount, name), gst_caps_ref(caps));
    for (GList *l = s->feeds; l; l = l->next) {
        Feed *f = l->data;
        if (f->mount == mount) apply_caps_to(f->element, name, caps);
    }
    g_mutex_unlock(&s->lock);
}

gboolean appl_rtsp_server_media_state(ApplRtspServer *s, guint mount, GstState *current, GstState *pending) {
    gboolean known = FALSE;
    g_mutex_lock(&s->lock);
    Feed *oldest = NULL;
    for (GList *l = s->feeds; l; l = l->next) {
        if (((Feed *)l->data)->mount == mount) oldest = l->data;
    }
    GstObject *pipeline = oldest ? gst_object_get_parent(GST_OBJECT(oldest->element)) : NULL;
    g_mutex_unlock(&s->lock);
    if (pipeline) {
        known = gst_element_get_state(GST_ELEMENT(pipeline), current, pending, 0) != GST_STATE_CHANGE_FAILURE;
        gst_object_unref(pipeline);
    }
    return known;
}

int appl_rtsp_server_port(ApplRtspServer *s) { return gst_rtsp_server_get_bound_port(s->server); }

int appl_rtsp_server_clients(ApplRtspServer *s) { return g_atomic_int_get(&s->clients); }

/* What one push hands to one media, taken under the lock and pushed after it. */
typedef struct {
    GstElement *src;
    GstBuffer *copy;
    GstBufferList *ready;
} Delivery;

/* Maps `buffer` onto the feed's running time: a copy to push now, audio held for a list (`ready` when full), or
 * nothing (no media playing, no such appsrc). Call under `lock`. */
static Delivery deliver(Feed *f, const char *name, GstBuffer *buffer, GstClockTime stamp) {
    Delivery d = {0};
    /* The media's pipeline runs on its own clock and base time: the first buffer after it starts playing maps the
     * caller's timestamps onto its running time, and every later buffer (either stream) keeps that shift, so audio
     * and video stay together. Nothing is pushed while it is not PLAYING (a live source would only queue it), and
     * leaving PLAYING forgets the shift: its running time stands still meanwhile, and the old shift would put every
     * later buffer ahead of it by the pause. */
    GstClockTime now = appl_element_running_time_when_playing(f->element);
    if (!GST_CLOCK_TIME_IS_VALID(now)) {
        forget_shift(f);
    } else if (!f->shift_known) {
        f->shift = (gint64)now - (gint64)stamp;
        f->shift_known = TRUE;
    }
    if (!f->shift_known || (gint64)stamp + f->shift < 0) return d;
    d.src = media_source(f, name);
    if (!d.src) return d;
    d.copy = gst_buffer_copy(buffer); /* metadata only: the memory is shared */
    GST_BUFFER_PTS(d.copy) = (GstClockTime)((gint64)stamp + f->shift);
    GST_BUFFER_DTS(d.copy) = GST_CLOCK_TIME_NONE;
    if (strcmp(name, AUDIO_STREAM) == 0) {
        /* held with the shift it was mapped with: forget_shift drops them together */
        if (!f->held_audio) f->held_audio = gst_buffer_list_new();
        gst_buffer_list_add(f->held_audio, g_steal_pointer(&d.copy));
        if (gst_buffer_list_length(f->held_audio) >= AUDIO_FRAMES_PER_SEND) d.ready = g_steal_pointer(&f->held_audio);
    }
    return d;
}

gboolean appl_rtsp_server_push(ApplRtspServer *s, guint mount, const char *name, GstBuffer *buffer,
                               GstClockTime running_time) {
    /* The caller's running time, not the PTS: x264enc (1.22) opens its segment at 1000 h (so that DTS never goes
     * negative), so raw video and audio timestamps are 1000 h apart. The copy goes without DTS; the media's parser
     * and payloader work from the PTS. */
    GstClockTime stamp = running_time;
    if (!GST_CLOCK_TIME_IS_VALID(stamp)) return FALSE;
    GArray *deliveries = g_array_new(FALSE, FALSE, sizeof(Delivery));
    g_mutex_lock(&s->lock);
    for (GList *l = s->feeds; l; l = l->next) {
        if (((Feed *)l->data)->mount != mount) continue;
        Delivery d = deliver(l->data, name, buffer, stamp);
        if (d.src) g_array_append_val(deliveries, d);
    }
    g_mutex_unlock(&s->lock);
    gboolean pushed = deliveries->len > 0;
    for (guint i = 0; i < deliveries->len; i++) {
        Delivery *d = &g_array_index(deliveries, Delivery, i);
        /* held for the next list: counts as pushed */
        if (d->copy) pushed = gst_app_src_push_buffer(GST_APP_SRC(d->src), d->copy) == GST_FLOW_OK && pushed;
        if (d->ready) pushed = gst_app_src_push_buffer_list(GST_APP_SRC(d->src), d->ready) == GST_FLOW_OK && pushed;
        gst_object_unref(d->src);
    }
    g_array_unref(deliveries);
    return pushed;
}

void appl_rtsp_server_set_talk(ApplRtspServer *s, guint id, GstElement *target) {
    g_mutex_lock(&s->lock);
    for (GList *l = s->feeds; l; l = l->next) {
        Feed *f = l->data;
        if (f->id == id && f->talk) appl_relay_set_target(f->talk, target);
    }
    g_mutex_unlock(&s->lock);
}

void appl_rtsp_server_stop(ApplRtspServer *s) {
    if (!s) return;
    /* Quit from inside the loop: a g_main_loop_quit from here before the thread has entered g_main_loop_run is
     * undone when it does, and the join waits for ever (a server stopped right after it started hung). */
    GSource *quit = g_idle_source_new();
    g_source_set_callback(quit, close_clients_and_quit, s, NULL);
    g_source_attach(quit, s->context);
    g_source_unref(quit);
    g_thread_join(s->thread);
    end_holds(s);
    free_server(s);
}
