import CZlib
import FoundationEssentials

/// gzip (RFC 1952) through zlib; the only code that touches `z_stream`.
enum Gzip {
    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    /// Compresses `data` into one gzip member (`deflateInit2` with windowBits 15 + 16).
    static func compress(_ data: Data, level: Int32 = 6) throws(Failure) -> Data {
        var stream = z_stream()
        let initStatus = deflateInit2_(
            &stream, level, Z_DEFLATED, 31, 8, Z_DEFAULT_STRATEGY, zlibVersion(), Int32(MemoryLayout<z_stream>.size))
        guard initStatus == Z_OK else { throw Failure(description: "deflateInit2 failed (\(initStatus))") }
        defer { deflateEnd(&stream) }

        var output = Data(count: Int(deflateBound(&stream, uLong(data.count))) + 64)
        // zlib rejects a null `next_in`, so empty input still points at one (unread) byte.
        let storage = data.isEmpty ? Data([0]) : data
        let status: Int32 = storage.withUnsafeBytes { (input: UnsafeRawBufferPointer) -> Int32 in
            output.withUnsafeMutableBytes { (out: UnsafeMutableRawBufferPointer) -> Int32 in
                stream.next_in = UnsafeMutablePointer(mutating: input.baseAddress!.assumingMemoryBound(to: Bytef.self))
                stream.avail_in = uInt(data.count)
                stream.next_out = out.baseAddress!.assumingMemoryBound(to: Bytef.self)
                stream.avail_out = uInt(out.count)
                return deflate(&stream, Z_FINISH)
            }
        }
        guard status == Z_STREAM_END else { throw Failure(description: "deflate failed (\(status))") }
        output.count = Int(stream.total_out)
        return output
    }

    /// Decompresses one gzip (or zlib) stream (`inflateInit2` with windowBits 15 + 32, which detects the header).
    ///
    /// - Throws: When the data is not gzip, fails its CRC, or ends early.
    static func decompress(_ data: Data) throws(Failure) -> Data {
        guard !data.isEmpty else { throw Failure(description: "empty file") }
        var stream = z_stream()
        let initStatus = inflateInit2_(&stream, 47, zlibVersion(), Int32(MemoryLayout<z_stream>.size))
        guard initStatus == Z_OK else { throw Failure(description: "inflateInit2 failed (\(initStatus))") }
        defer { inflateEnd(&stream) }

        var output = Data()
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        let status: Int32 = data.withUnsafeBytes { (input: UnsafeRawBufferPointer) -> Int32 in
            stream.next_in = UnsafeMutablePointer(mutating: input.baseAddress!.assumingMemoryBound(to: Bytef.self))
            stream.avail_in = uInt(input.count)
            while true {
                let (status, produced) = chunk.withUnsafeMutableBufferPointer { buffer -> (Int32, Int) in
                    stream.next_out = buffer.baseAddress
                    stream.avail_out = uInt(buffer.count)
                    let status = inflate(&stream, Z_NO_FLUSH)
                    return (status, buffer.count - Int(stream.avail_out))
                }
                output.append(contentsOf: chunk[0..<produced])
                switch status {
                case Z_OK:
                    continue
                case Z_BUF_ERROR where produced > 0:
                    continue
                default:
                    return status
                }
            }
        }
        switch status {
        case Z_STREAM_END:
            return output
        case Z_BUF_ERROR:
            throw Failure(description: "truncated gzip data")
        default:
            let message = stream.msg.map { String(cString: $0) } ?? "code \(status)"
            throw Failure(description: "corrupt gzip data: \(message)")
        }
    }
}
