package notes

import (
	"bytes"

	"github.com/noema-mem/noema"
	"github.com/noema-mem/noema/vault"
)

// MaxNoteLinks is the most distinct link keys (concepts) one note written
// by noema may link. Every distinct key is a row in links, concepts and
// concept_keys, written in the note's one transaction: at this limit a
// write_note takes about 0.2 s; a note with 100,000 distinct links took
// about 2 s on a 2-core machine even with set-based statements, holding the
// index's write lock all that time. Files written by other tools are still
// indexed whatever they link.
const MaxNoteLinks = 10000

// checkLinks refuses content that links more than MaxNoteLinks distinct
// keys, with too_large.
func checkLinks(content []byte) error {
	if bytes.Count(content, []byte("[[")) <= MaxNoteLinks {
		return nil // cannot be over: every link opens with "[["
	}
	n, err := vault.Parse("limit.md", content)
	if err != nil {
		return nil // not a note the index would read; the write reports it
	}
	keys := make(map[string]struct{})
	for _, l := range n.Links {
		if l.Key != "" {
			keys[l.Key] = struct{}{}
		}
	}
	if len(keys) > MaxNoteLinks {
		return noema.Errorf(noema.ETOOLARGE, "note links %d distinct concepts, over the limit of %d per note; split it into several notes",
			len(keys), MaxNoteLinks)
	}
	return nil
}
