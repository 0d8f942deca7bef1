/// Classes of ASCII bytes that the spec's names, type expressions and scalars are read by.
extension UInt8 {
    /// An ASCII letter, `A` to `Z` or `a` to `z`.
    var isASCIILetter: Bool { (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(self | 0x20) }
    /// An ASCII digit, `0` to `9`.
    var isASCIIDigit: Bool { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(self) }
}
