import NIOCore

/// What the line decoder hands on: a complete line, or notice that a line exceeded the limit (and was skipped).
public enum LineFrame: Sendable {
    case line(ByteBuffer)
    case tooLong
}

/// Splits a byte stream on "\n" with a maximum line length, so a client cannot make the daemon buffer forever.
struct LineFrameDecoder: ByteToMessageDecoder {
    typealias InboundOut = LineFrame
    let maxLength: Int
    private var discarding = false

    package init(maxLength: Int) { self.maxLength = maxLength }

    package mutating func decode(context: ChannelHandlerContext, buffer: inout ByteBuffer) throws -> DecodingState {
        if let newline = buffer.readableBytesView.firstIndex(of: UInt8(ascii: "\n")) {
            let length = newline - buffer.readerIndex
            if discarding {
                buffer.moveReaderIndex(forwardBy: length + 1)
                discarding = false
                return .continue
            }
            var line = buffer.readSlice(length: length)!
            buffer.moveReaderIndex(forwardBy: 1)
            if line.readableBytes > maxLength {
                context.fireChannelRead(wrapInboundOut(.tooLong))
                return .continue
            }
            if line.readableBytesView.last == UInt8(ascii: "\r") {
                line = line.getSlice(at: line.readerIndex, length: line.readableBytes - 1)!
            }
            context.fireChannelRead(wrapInboundOut(.line(line)))
            return .continue
        }
        if buffer.readableBytes > maxLength {
            buffer.moveReaderIndex(forwardBy: buffer.readableBytes)
            if !discarding {
                discarding = true
                context.fireChannelRead(wrapInboundOut(.tooLong))
            }
        }
        return .needMoreData
    }

    mutating func decodeLast(context: ChannelHandlerContext, buffer: inout ByteBuffer, seenEOF: Bool) throws
        -> DecodingState
    {
        while try decode(context: context, buffer: &buffer) == .continue {}
        if buffer.readableBytes > 0, !discarding {
            let line = buffer.readSlice(length: buffer.readableBytes)!
            context.fireChannelRead(wrapInboundOut(.line(line)))
        }
        return .needMoreData
    }
}
