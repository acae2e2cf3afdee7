import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif

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

    /// Parses `data` with Foundation's streaming parser (libxml2 underneath), namespace-aware. A document type
    /// declaration is refused before parsing (SOAP forbids it, and it is where entity expansion and external
    /// entities live), and so is a document past `limits`: a hostile request costs at most one bounded pass.
    public static func parse(_ data: Data, limits: Limits = .soap) throws(ParseError) -> XMLTree {
        guard data.count <= limits.bytes else { throw ParseError(description: "message larger than \(limits.bytes) bytes") }
        guard data.range(of: Data("<!DOCTYPE".utf8)) == nil, data.range(of: Data("<!ENTITY".utf8)) == nil else {
            throw ParseError(description: "document type declarations are not allowed in SOAP messages")
        }
        let builder = TreeBuilder(limits: limits)
        let parser = XMLParser(data: data)
        parser.shouldProcessNamespaces = true
        parser.shouldReportNamespacePrefixes = false
        parser.shouldResolveExternalEntities = false
        parser.delegate = builder
        _ = parser.parse()
        if let refusal = builder.refusal { throw ParseError(description: refusal) }
        if parser.parserError != nil || builder.root == nil {
            throw ParseError(description: "malformed XML at line \(parser.lineNumber)")
        }
        return builder.root!
    }
}

/// Builds the tree from the parser's callbacks, counting as it goes.
private final class TreeBuilder: NSObject, XMLParserDelegate {
    let limits: XMLTree.Limits
    var stack: [XMLTree] = []
    var root: XMLTree?
    var count = 0
    var refusal: String?

    init(limits: XMLTree.Limits) { self.limits = limits }

    func parser(_ parser: XMLParser, didStartElement elementName: String, namespaceURI: String?, qualifiedName: String?,
                attributes: [String: String] = [:]) {
        count += 1
        if count > limits.elements || stack.count >= limits.depth {
            refusal = count > limits.elements ? "more than \(limits.elements) elements" : "nested deeper than \(limits.depth)"
            parser.abortParsing()
            return
        }
        stack.append(XMLTree(namespace: namespaceURI ?? "", name: elementName, attributes: attributes, text: "", children: []))
    }

    func parser(_ parser: XMLParser, foundCharacters string: String) {
        guard !stack.isEmpty else { return }
        stack[stack.count - 1].text += string
    }

    func parser(_ parser: XMLParser, didEndElement elementName: String, namespaceURI: String?, qualifiedName: String?) {
        guard let done = stack.popLast() else { return }
        if stack.isEmpty { root = done } else { stack[stack.count - 1].children.append(done) }
    }

    func parser(_ parser: XMLParser, foundInternalEntityDeclarationWithName name: String, value: String?) {
        refusal = "entity declarations are not allowed"
        parser.abortParsing()
    }
}
