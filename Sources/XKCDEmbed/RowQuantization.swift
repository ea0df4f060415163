/// Quantises one row of a dense product's input to u8 around 128, on the row's own scale: its
/// largest |x·input scale| becomes 127. Returns the step, the float one code stands for.
///
/// Rounding is done by adding 1.5 × 2²³, after which a float's low mantissa bits are the rounded
/// integer (to nearest, ties to even): `Float.rounded()` and a checked conversion to an integer
/// (which traps on NaN or out of range) kept the loop from being vectorised, and cost more than
/// the int8 product saved on a long passage (docs/int8.md). The largest magnitude is found as the
/// largest bit pattern with the sign cleared, which orders as the magnitudes do: a loop of float
/// `max` stays scalar (the compiler must keep its order for NaN) and was a fifth of a short
/// query's time, and SIMD16's `pointwiseMax` compiled to lane-by-lane copies, slower still.
/// Nothing here can trap: a NaN from broken weights gives some code, and the model's check then
/// refuses the weights.
func quantizeRow(
    _ values: UnsafePointer<Float>, scaledBy inputScales: UnsafePointer<Float>, count: Int,
    into codes: UnsafeMutablePointer<UInt8>
) -> Float {
    var largestBits: UInt32 = 0
    for index in 0..<count {
        largestBits = max(largestBits, (values[index] * inputScales[index]).bitPattern & 0x7fff_ffff)
    }
    let largest = Float(bitPattern: largestBits)
    let step = largest > 0 ? largest / 127 : 1
    let inverse = 1 / step
    // 128 is added for the u8 code, and 1.5 × 2²³ so that the sum's low bits are the integer.
    let offset: Float = 128 + 12_582_912
    for index in 0..<count {
        let scaled = min(max(values[index] * inputScales[index] * inverse, -127), 127)
        codes[index] = UInt8(truncatingIfNeeded: (scaled + offset).bitPattern)
    }
    return step
}
