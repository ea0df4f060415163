import CLibXML2

/// Walks a `div.mw-parser-output` once, in document order, sending text to the section the last
/// heading opened.
///
/// Headings are recognised wherever libxml2 put them (also inside tables or lists), so a heading
/// nested in a table still switches sections at the right point and the text before it stays in
/// the previous section.
///
/// Section rules:
/// - Content before the first heading (the "lead", minus the comic box) belongs to the
///   explanation. Comic 3042 has no Explanation heading, and pages such as 1335 put an
///   introductory paragraph there.
/// - h1/h2 "Explanation" and "Eggsplanation" (2408) → explanation; "Transcript…" → transcript;
///   "Trivia…" → trivia; "Discussion" (and any `id="Discussion"` anchor) ends the article.
/// - Any other h1/h2 ("Table", "References", "Frame-by-frame breakdown", "Technical aspects",
///   …; about 100 pages have one) is folded into the explanation, with its title kept as a
///   paragraph. These sections explain the comic in more detail (tables of items, breakdowns,
///   background), they are never transcript lines, and only ones named Trivia are trivia; putting
///   them in the explanation keeps them searchable without polluting the other two fields.
/// - h3–h6 stay in their h2's section (their titles are kept as paragraphs), except a subsection
///   titled exactly "Trivia" (969, 1276, 1406 nest one under Explanation or Transcript), which
///   switches to trivia until the next h2.
struct SectionExtractor {
    enum Section { case explanation, transcript, trivia }

    var explanation = TextBuffer()
    var transcript = TextBuffer()
    var trivia = TextBuffer()
    /// Set when a notice box says the explanation or transcript is incomplete.
    private(set) var isIncomplete = false
    /// The comics the sections link to, each once, in the order first linked.
    private(set) var linkedComics: [Int] = []
    /// The same comics as a set: a hostile page may hold a hundred thousand links.
    private var linkedComicSet: Set<Int> = []

    private var section = Section.explanation
    private var hasSeenHeading = false
    private var hasSkippedComicBox = false
    private var isFinished = false
    /// One entry per open `ul`/`ol`: the last number used, nil for bullets.
    private var lists: [Int?] = []
    /// One entry per open `tr`: how many cells it has had.
    private var rowCellCounts: [Int] = []
    private var itemDepth = 0
    private var cellDepth = 0
    private var preDepth = 0

    mutating func extract(from content: xmlNodePtr) {
        var next = content.pointee.children
        while let node = next {
            switch node.pointee.type {
            case XML_ELEMENT_NODE:
                let entered = enter(node)
                if isFinished { return }
                if entered {
                    if let child = node.pointee.children {
                        next = child
                        continue
                    }
                    leave(node)
                }
            case XML_TEXT_NODE, XML_CDATA_SECTION_NODE:
                if let text = node.pointee.content {
                    let isPreformatted = preDepth > 0
                    modifyCurrent { $0.append(text: text, isPreformatted: isPreformatted) }
                }
            default:
                break  // comments (the "NewPP limit report"), processing instructions
            }
            next = LibXML.nextNode(after: node, under: content) { leave($0) }
        }
    }

    @inline(__always)
    private mutating func modifyCurrent(_ body: (inout TextBuffer) -> Void) {
        switch section {
        case .explanation: body(&explanation)
        case .transcript: body(&transcript)
        case .trivia: body(&trivia)
        }
    }

    /// Asks for a break before the next text. Inside a table cell every break is only a space,
    /// so that each table row stays on one line (1335's image table has `<br>`-separated links;
    /// 1608's transcript table has `dl` lines in its cells).
    private mutating func requestBreak(_ level: TextBuffer.Break) {
        if cellDepth > 0 {
            modifyCurrent { $0.requestSpace() }
        } else {
            modifyCurrent { $0.requestBreak(level) }
        }
    }

    /// A block (paragraph, list, table…) starts a paragraph, or only a new line inside a list
    /// item so that the item stays together.
    private mutating func requestBlockBreak() {
        requestBreak(itemDepth > 0 ? .line : .paragraph)
    }

    /// Handles an element on the way in; returns whether to walk its children.
    private mutating func enter(_ node: xmlNodePtr) -> Bool {
        let tag = LibXML.tag(of: node)
        switch tag {
        case .script, .style, .noscript, .img, .input, .button, .audio, .video, .svg:
            return false
        default:
            break
        }
        if node.pointee.properties != nil {
            let attributes = LibXML.ElementAttributes(node)
            if attributes.id != nil {
                if attributes.idEquals("Discussion") {
                    isFinished = true
                    return false
                }
                if attributes.idEquals("toc") { return false }
            }
            if let classes = attributes.classes {
                if LibXML.classList(classes, contains: "mw-editsection")
                    || LibXML.classList(classes, contains: "noprint")  // [citation needed] and co.
                    || LibXML.classList(classes, contains: "navbox")
                    || LibXML.classList(classes, contains: "toc")
                    || LibXML.classList(classes, contains: "mw-cite-backlink")
                    || (tag == .sup && LibXML.classList(classes, contains: "reference"))
                {
                    return false
                }
                if LibXML.classList(classes, contains: "notice_tpl") {
                    noteNotice(node)
                    return false
                }
            }
        }
        if tag == .sup, Self.isBracketedNote(node) { return false }
        if let level = tag.headingLevel {
            enterHeading(node, level: level)
            return false
        }
        switch tag {
        case .table:
            if !hasSeenHeading, !hasSkippedComicBox {
                // The {{comic}} box: navigation, title, image and "Title text:".
                hasSkippedComicBox = true
                return false
            }
            requestBlockBreak()
        case .p, .div, .blockquote, .center, .figure, .section, .dl, .hr:
            requestBlockBreak()
        case .pre:
            requestBlockBreak()
            preDepth += 1
        case .ul:
            requestBlockBreak()
            lists.append(nil)
        case .ol:
            requestBlockBreak()
            lists.append(0)
        case .li:
            var number: Int?
            if let last = lists.last, let previous = last {
                number = previous + 1
                lists[lists.count - 1] = number
            }
            requestBreak(.line)
            if cellDepth == 0 {
                let marker = TextBuffer.ListMarker(depth: lists.count, number: number)
                modifyCurrent { $0.requestMarker(marker) }
            }
            itemDepth += 1
        case .dd, .dt:
            requestBreak(.line)
            itemDepth += 1
        case .tr:
            requestBreak(.line)
            rowCellCounts.append(0)
        case .td, .th:
            if let count = rowCellCounts.last {
                if count > 0 { modifyCurrent { $0.requestCellSeparator() } }
                rowCellCounts[rowCellCounts.count - 1] = count + 1
            }
            cellDepth += 1
        case .br, .caption, .figcaption:
            requestBreak(.line)
        case .a:
            if let comic = ComicLink.comic(linkedBy: node), linkedComicSet.insert(comic).inserted {
                linkedComics.append(comic)
            }
        default:
            break
        }
        return true
    }

    /// Handles an element that was entered, on the way out.
    private mutating func leave(_ node: xmlNodePtr) {
        switch LibXML.tag(of: node) {
        case .table, .p, .div, .blockquote, .center, .figure, .section, .dl:
            requestBlockBreak()
        case .pre:
            preDepth -= 1
            requestBlockBreak()
        case .ul, .ol:
            lists.removeLast()
            requestBlockBreak()
        case .li, .dd, .dt:
            itemDepth -= 1
            requestBreak(.line)
        case .tr:
            rowCellCounts.removeLast()
            requestBreak(.line)
        case .td, .th:
            cellDepth -= 1
        case .caption, .figcaption:
            requestBreak(.line)
        default:
            break
        }
    }

    private mutating func enterHeading(_ node: xmlNodePtr, level: Int) {
        var title = TextBuffer()
        title.appendText(of: node)
        let name = title.lowercasedASCII
        if level <= 2, name.elementsEqual("discussion".utf8) {
            isFinished = true
            return
        }
        hasSeenHeading = true
        var isTitleKept = true
        if level <= 2 {
            if name.elementsEqual("explanation".utf8) || name.elementsEqual("eggsplanation".utf8) {
                section = .explanation
                isTitleKept = false
            } else if name.starts(with: "transcript".utf8) {
                section = .transcript
                isTitleKept = name.count != "transcript".utf8.count
            } else if name.starts(with: "trivia".utf8) {
                section = .trivia
                isTitleKept = name.count != "trivia".utf8.count
            } else {
                section = .explanation  // see the type's comment: unknown sections explain
            }
        } else if name.elementsEqual("trivia".utf8) {
            section = .trivia
            isTitleKept = false
        }
        modifyCurrent { $0.requestBreak(.paragraph) }
        if isTitleKept {
            modifyCurrent {
                $0.append(title)
                $0.requestBreak(.paragraph)
            }
        }
    }

    /// A superscript like `[citation needed]`, `[dubious]` or `[1]`: explainxkcd's real
    /// {{citation needed}} renders as a plain `<sup>[<a …><i>citation needed</i></a>]</sup>`
    /// (no class), and some pages write it out by hand like that (402, 1540).
    private static func isBracketedNote(_ node: xmlNodePtr) -> Bool {
        var text = TextBuffer()
        text.appendText(of: node)
        guard let first = text.bytes.first, let last = text.bytes.last else { return false }
        return first == UInt8(ascii: "[") && last == UInt8(ascii: "]") && text.bytes.count <= 40
    }

    /// Notice boxes ({{incomplete}}, {{incomplete transcript}}, {{notice}}, {{spoiler}}) are
    /// dropped; the incomplete ones set the flag. Their wording is "This explanation may be
    /// incomplete or incorrect" and "This transcript is incomplete", in the corpus and on the live
    /// 2019 page (where the same `table.notice_tpl` also holds an icon).
    private mutating func noteNotice(_ node: xmlNodePtr) {
        var text = TextBuffer()
        text.appendText(of: node)
        if text.contains(caseInsensitive: "incomplete") { isIncomplete = true }
    }
}
