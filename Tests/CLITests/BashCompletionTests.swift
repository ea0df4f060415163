import Foundation
import Testing
import _XKCDTestSupport

/// The bash completion script, run by bash as it completes a line: the values of the global
/// options before the command, comics and tags.
@Suite("bash completion")
struct BashCompletionTests {
    @Test func completesGlobalOptionValuesComicsAndTags() async throws {
        try await withBrowseSandbox { sandbox in
            #expect(try await sandbox.run("fav", "add", "327", "sqltag").status == 0)
            let script = sandbox.directory.appendingPathComponent("complete.sh")
            try Data(
                #"""
                source <("$1" --generate-completion-script bash)
                PATH="$(dirname "$1"):$PATH"
                db="$2"
                # Completes a line as bash would at its end, and prints the candidates joined by |.
                complete_line() {
                    COMP_LINE="$1"; COMP_POINT=${#COMP_LINE}
                    read -ra COMP_WORDS <<< "$COMP_LINE"; [[ "$COMP_LINE" == *" " ]] && COMP_WORDS+=("")
                    COMP_CWORD=$((${#COMP_WORDS[@]} - 1)); COMPREPLY=()
                    _xkcd-search xkcd-search "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD-1]}"
                    printf '%s|' "${COMPREPLY[@]}"; echo
                }
                cd "$(dirname "$db")"
                complete_line "xkcd-search --color "
                complete_line "xkcd-search --db "
                complete_line "xkcd-search --db $db show "
                complete_line "xkcd-search fav tag 327 --db $db "
                complete_line "xkcd-search random --db $db --tag sq"
                """#.utf8
            ).write(to: script)
            let output = try await runTool(["bash", script.path, sandbox.cli.executable.path, sandbox.db])
            #expect(output.status == 0, "\(output.output)")
            let lines = output.output.split(separator: "\n").map(String.init)
            #expect(lines.count == 5, "\(output.output)")
            guard lines.count == 5 else { return }
            #expect(Set(lines[0].split(separator: "|")) == ["auto", "always", "never"], "\(lines[0])")
            // Files, not commands.
            #expect(lines[1].contains("index.sqlite") && !lines[1].contains("search|"), "\(lines[1])")
            #expect(Set(lines[2].split(separator: "|")) == ["latest", "random"], "\(lines[2])")
            #expect(lines[3] == "sqltag|" && lines[4] == "sqltag|", "\(lines)")
        }
    }
}
