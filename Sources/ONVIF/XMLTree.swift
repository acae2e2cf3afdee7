import CXML
import Foundation

/// A parsed XML element, by namespace and local name (prefixes are the sender's choice: zeep writes `ns0:`, others
/// `tds:`), with its attributes (by qualified name), its text and its child elements.
public struct XMLTree: Sendable, Equatable {
    public var namespace: String
    public var name: String
    public var attributes: [String: String]
    public var text: String
    public var children: [XMLTree]

    /// The first child element named `name` in `namespace` (any namespace when nil).
    public func child(_ name: String, in namespace: String? = nil) -> XMLTree? {
        children.first { $0.name == name && (namespace == nil || $0.namespace == namespace) }
    }

    /// The trimmed text of the descendant at `path` (child names, any namespace); nil when absent.
    public func value(_ path: String...) -> String? {
        var node = self
        for step in path {
            guard let next = node.child(step) else { return nil }
            node = next
        }
        return node.text.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// An attribute by local name, whatever its prefix.
    public func attribute(_ localName: String) -> String? {
        attributes[localName] ?? attributes.first { $0.key.hasSuffix(":" + localName) }?.value
    }
}

extension XMLTree {
    /// What a SOAP peer may send at most: SOAP requests are a few kilobytes.
    public struct Limits: Sendable {
        public var bytes = 64 * 1024
        public var elements = 2_000
        public var depth = 32
        public static let soap = Limits()
    }

    /// Why a document was refused; the text is safe to send back in a fault.
    public struct ParseError: Error, Equatable, CustomStringConvertible {
        public let description: String
    }

    /// Parses `data` with libxml2, namespace-aware. Refused before parsing: anything past `limits.bytes`, bytes that
    /// are not UTF-8, and a document type declaration (SOAP forbids it, and it is where entity expansion and external
    /// entities live); while reading: no network, no entity substitution, no error printing; after: past the element
    /// count or depth. A hostile request costs at most one bounded pass. (Foundation's XMLParser, which every Swift
    /// XML package here sits on, traps on an unbound prefix or bytes that are not UTF-8: found by the fuzz test.)
    public static func parse(_ data: Data, limits: Limits = .soap) throws(ParseError) -> XMLTree {
        guard data.count <= limits.bytes else {
            throw ParseError(description: "message larger than \(limits.bytes) bytes")
        }
        guard data.range(of: Data("<!DOCTYPE".utf8)) == nil, data.range(of: Data("<!ENTITY".utf8)) == nil else {
            throw ParseError(description: "document type declarations are not allowed in SOAP messages")
        }
        guard !data.isEmpty, String(validating: data, as: UTF8.self) != nil else {
            throw ParseError(description: "malformed XML: not UTF-8 text")
        }
        LibXML.initialized.touch()
        let options = Int32(
            XML_PARSE_NONET.rawValue | XML_PARSE_NOERROR.rawValue | XML_PARSE_NOWARNING.rawValue
                | XML_PARSE_NOCDATA.rawValue)
        let document = data.withUnsafeBytes { bytes in
            xmlReadMemory(
                bytes.baseAddress?.assumingMemoryBound(to: CChar.self), Int32(bytes.count), "soap.xml", "UTF-8", options
            )
        }
        guard let document else { throw ParseError(description: "malformed XML") }
        defer { xmlFreeDoc(document) }
        guard let root = xmlDocGetRootElement(document) else {
            throw ParseError(description: "malformed XML: no root element")
        }
        var count = 0
        return try tree(root, depth: 1, count: &count, limits: limits)
    }

    private static func tree(_ node: xmlNodePtr, depth: Int, count: inout Int, limits: Limits) throws(ParseError)
        -> XMLTree
    {
        count += 1
        guard count <= limits.elements else { throw ParseError(description: "more than \(limits.elements) elements") }
        guard depth <= limits.depth else { throw ParseError(description: "nested deeper than \(limits.depth)") }
        var element = XMLTree(
            namespace: node.pointee.ns.flatMap { $0.pointee.href.map(text) } ?? "", name: text(node.pointee.name),
            attributes: [:], text: "", children: [])
        var attribute = node.pointee.properties
        while let a = attribute {
            let local = text(a.pointee.name)
            let key = a.pointee.ns.flatMap { $0.pointee.prefix.map(text) }.map { "\($0):\(local)" } ?? local
            element.attributes[key] = a.pointee.children.map { text($0.pointee.content) } ?? ""
            attribute = a.pointee.next
        }
        var child = node.pointee.children
        while let c = child {
            switch c.pointee.type {
            case XML_ELEMENT_NODE: element.children.append(try tree(c, depth: depth + 1, count: &count, limits: limits))
            case XML_TEXT_NODE, XML_CDATA_SECTION_NODE: element.text += text(c.pointee.content)
            default: break
            }
            child = c.pointee.next
        }
        return element
    }

    private static func text(_ pointer: UnsafePointer<xmlChar>?) -> String {
        pointer.map { String(cString: $0) } ?? ""
    }
    private static func text(_ pointer: UnsafeMutablePointer<xmlChar>?) -> String { text(UnsafePointer(pointer)) }
}

/// libxml2's one-time set-up (its global tables), before the first parse from any thread.
private enum LibXML {
    final class Once: Sendable {
        init() { xmlInitParser() }
        func touch() {}
    }
    static let initialized = Once()
}
