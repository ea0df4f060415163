import Testing
import XKCDCommandLine
import XKCDModel
import _XKCDTestSupport

/// `sanitized` works on bytes; it must remove and replace exactly what a scalar-by-scalar
/// reading of its rule does.
@Suite struct SanitizedTests {
    private func reference(_ text: String, keepingNewlines: Bool) -> String {
        var result = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            switch scalar.value {
            case 0x0A where keepingNewlines: result.append(scalar)
            case 0x09, 0x0A, 0x0D: result.append(" ")
            case 0x00..<0x20, 0x7F..<0xA0: continue
            case 0x061C, 0x200E...0x200F, 0x202A...0x202E, 0x2066...0x2069: continue
            default: result.append(scalar)
            }
        }
        return String(result)
    }

    @Test(arguments: [
        ("plain text … with an ellipsis", "plain text … with an ellipsis"),
        ("a\tb\nc\rd", "a b c d"),
        ("bell\u{7} esc\u{1B}[31m del\u{7F} c1\u{85}\u{9B}", "bell esc[31m del c1"),
        (
            "rtl \u{202E}txt\u{202C} iso\u{2066}x\u{2069} keep \u{2026}\u{2028}\u{00A0}©",
            "rtl txt isox keep \u{2026}\u{2028}\u{00A0}©"
        ),
        (
            "marks \u{200F}rlm\u{200E}lrm\u{061C}alm keep \u{200D}\u{200B}\u{0600}",
            "marks rlmlrmalm keep \u{200D}\u{200B}\u{0600}"
        ),
    ])
    func controlsAreRemovedAndTheRestKept(text: String, expected: String) {
        #expect(sanitized(text) == expected)
    }

    @Test func newlinesStayWhenAsked() {
        #expect(sanitized("a\nb\tc", keepingNewlines: true) == "a\nb c")
    }

    @Test func randomTextAgreesWithTheScalarRule() {
        var random = SplitMix64(seed: 0x7361_6e69)  // "sani"
        let scalars: [Unicode.Scalar] = [
            "a", "Z", " ", "\t", "\n", "\r", "\u{0}", "\u{7}", "\u{1B}", "\u{7F}", "\u{80}", "\u{85}", "\u{9F}",
            "\u{A0}",
            "é", "…", "\u{2028}", "\u{2029}", "\u{202A}", "\u{202E}", "\u{202F}", "\u{2065}", "\u{2066}", "\u{2069}",
            "\u{206A}", "😀", "中", "€", "\u{1F}", "©", "\u{200E}", "\u{200F}", "\u{200D}", "\u{2010}", "\u{061C}",
            "\u{061B}", "\u{0600}",
        ]
        for _ in 0..<5_000 {
            var view = String.UnicodeScalarView()
            for _ in 0..<Int.random(in: 0...12, using: &random) { view.append(scalars.randomElement(using: &random)!) }
            let text = String(view)
            let keeping = Bool.random(using: &random)
            #expect(
                sanitized(text, keepingNewlines: keeping) == reference(text, keepingNewlines: keeping),
                "\(text.debugDescription)")
        }
    }
}
