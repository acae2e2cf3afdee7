import Foundation

#if canImport(FoundationXML)
    import FoundationXML
#endif

/// Builds replies with Foundation's XML tree (libxml2 underneath), which escapes text and attribute values: no
/// reply is spliced from strings. Names carry the prefixes of `ONVIFNamespace`, declared once on the envelope.
package enum XMLWriter {
    /// `<name attr="…">text</name>`.
    package static func element(_ name: String, _ text: String, attributes: [(String, String)] = []) -> XMLElement {
        let element = XMLElement(name: name, stringValue: text)
        for (key, value) in attributes { element.addAttribute(attribute(key, value)) }
        return element
    }

    /// `<name attr="…">children</name>`.
    package static func element(_ name: String, attributes: [(String, String)] = [], _ children: [XMLElement] = [])
        -> XMLElement
    {
        let element = XMLElement(name: name)
        for (key, value) in attributes { element.addAttribute(attribute(key, value)) }
        for child in children { element.addChild(child) }
        return element
    }

    /// A SOAP 1.2 envelope with `body` (and `header`, if any), every prefix of `prefixes` declared on it.
    package static func envelope(
        prefix: String = "env", header: [XMLElement] = [], body: [XMLElement],
        prefixes: [(String, String)] = ONVIFNamespace.replyPrefixes
    ) -> Data {
        let root = element("\(prefix):Envelope")
        for (name, uri) in prefixes {
            root.addNamespace(XMLNode.namespace(withName: name, stringValue: uri) as! XMLNode)
        }
        if !header.isEmpty { root.addChild(element("\(prefix):Header", header)) }
        root.addChild(element("\(prefix):Body", body))
        let document = XMLDocument(rootElement: root)
        document.version = "1.0"
        document.characterEncoding = "UTF-8"
        return document.xmlData(options: [])
    }

    private static func attribute(_ name: String, _ value: String) -> XMLNode {
        XMLNode.attribute(withName: name, stringValue: value) as! XMLNode
    }
}
