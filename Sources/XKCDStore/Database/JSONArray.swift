/// `ids` as a JSON array, for `json_each`: one statement whatever the count.
func jsonArray(_ ids: [Int]) -> String {
    // Digit by digit: String(Int) and joined were a tenth of reading ten result lines.
    var bytes: [UInt8] = [UInt8(ascii: "[")]
    bytes.reserveCapacity(2 + 8 * ids.count)
    var digits = InlineArray<20, UInt8>(repeating: 0)  // of one number, last first
    for (index, id) in ids.enumerated() {
        if index > 0 { bytes.append(UInt8(ascii: ",")) }
        if id < 0 { bytes.append(UInt8(ascii: "-")) }
        var count = 0
        var rest = id.magnitude
        repeat {
            digits[count] = UInt8(ascii: "0") + UInt8(rest % 10)
            count += 1
            rest /= 10
        } while rest > 0
        while count > 0 {
            count -= 1
            bytes.append(digits[count])
        }
    }
    bytes.append(UInt8(ascii: "]"))
    return String(decoding: bytes, as: UTF8.self)
}
