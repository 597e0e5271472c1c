package importer

import (
	"bytes"
	"strings"

	"github.com/noema-mem/noema/vault"
)

// ObservationsHeading is the heading of the section of a page or note that
// lists its observations, one Markdown bullet each: what a memory-jsonl
// import writes and what its export reads (basic-memory writes the same
// section).
const ObservationsHeading = "## Observations"

// Observations returns the bullets of body's "## Observations" section, in
// order, and whether the section exists. A bullet starts with "- " or "* "
// at the start of a line; the lines after it indented by two spaces
// continue it (an observation of several lines, joined with "\n"). Other
// lines of the section are not observations.
func Observations(body []byte) ([]string, bool) {
	start, end, ok := vault.FindSection(body, ObservationsHeading)
	if !ok {
		return nil, false
	}
	var out []string
	open := false
	for line := range strings.Lines(string(body[start:end])) {
		line = strings.TrimRight(line, "\r\n")
		switch {
		case strings.HasPrefix(line, "- ") || strings.HasPrefix(line, "* ") || line == "-" || line == "*":
			out = append(out, strings.TrimPrefix(line[1:], " "))
			open = true
		case open && strings.HasPrefix(line, "  "):
			out[len(out)-1] += "\n" + line[2:]
		default:
			open = false
		}
	}
	return out, true
}

// bullet renders an observation as a bullet that [Observations] reads back
// as the same text: "- text", each further line indented by two spaces.
func bullet(text string) string {
	return "- " + strings.ReplaceAll(text, "\n", "\n  ") + "\n"
}

// addObservations returns body with the bullets of obs appended to its
// "## Observations" section (added at the end when body has none).
func addObservations(body []byte, obs []string) []byte {
	if len(obs) == 0 {
		return body
	}
	var items strings.Builder
	for _, o := range obs {
		items.WriteString(bullet(o))
	}
	start, end, ok := vault.FindSection(body, ObservationsHeading)
	if !ok {
		out := bytes.TrimRight(body, "\n")
		if len(out) > 0 {
			out = append(out, "\n\n"...)
		}
		out = append(out, ObservationsHeading+"\n\n"...)
		return append(out, items.String()...)
	}
	// After the section's last non-blank line, before the blank lines that
	// part it from the next heading.
	at := start + len(bytes.TrimRight(body[start:end], " \t\r\n"))
	var out []byte
	out = append(out, body[:at]...)
	if at > start {
		out = append(out, '\n')
	} else if at > 0 && body[at-1] != '\n' {
		out = append(out, '\n')
	}
	if at == start && start > 0 && !bytes.HasSuffix(body[:start], []byte("\n\n")) {
		out = append(out, '\n')
	}
	out = append(out, items.String()...)
	rest := body[at:]
	rest = bytes.TrimLeft(rest, " \t\r\n")
	if len(rest) > 0 {
		out = append(out, '\n')
		out = append(out, rest...)
	}
	return out
}
