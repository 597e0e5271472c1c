// Package noema holds the domain of the noema memory server: the types every
// other package speaks (notes, links, concepts, relations) and the stable error
// codes that reach callers through the CLI and MCP.
//
// The package imports only the standard library. Concrete behaviour lives in
// the packages named after each concern: vault (Markdown files on disk),
// sqlite (the index), indexer (sync), notes (note operations), fuzzy,
// decay, embedding, vector, mcpserver and httpserver.
package noema

import (
	"crypto/sha256"
	"encoding/base32"
	"fmt"
	"strings"
	"time"
)

// URIScheme is the scheme of note identifiers: memory://<path-without-.md>.
const URIScheme = "memory://"

// Link is one WikiLink occurrence in a note body.
type Link struct {
	// Target is the text before any '#' or '|', trimmed.
	Target string `json:"target"`
	// Heading is the part after '#', if any.
	Heading string `json:"heading,omitempty"`
	// Display is the part after '|', if any.
	Display string `json:"display,omitempty"`
	// Key is the normalized concept key of Target (see vault.Key).
	Key string `json:"key"`
	// Embed is set for an embed (![[Target]]).
	Embed bool `json:"embed,omitempty"`
	// Path is the vault path of the note a folder-qualified link
	// ([[folder/Note]]) names; empty for a link by name.
	Path string `json:"path,omitempty"`
	// Line is the 1-based line of the link in the whole file.
	Line int `json:"line"`
	// Offset is the byte offset of "[[" in the whole file; End is one past "]]".
	Offset int `json:"offset"`
	End    int `json:"end"`
}

// Relation is a directed, typed edge stored in the front matter of its
// source node's file. From and To are node ids: a concept id or a note's
// memory:// URI.
type Relation struct {
	ID   string `json:"id"`
	From string `json:"from"`
	Type string `json:"type"`
	To   string `json:"to"`
	// FromLabel and ToLabel name the ends: a concept's label or a note's
	// title (empty for a dangling target).
	FromLabel string         `json:"from_label,omitempty"`
	ToLabel   string         `json:"to_label,omitempty"`
	Weight    *float64       `json:"weight,omitempty"`
	Metadata  map[string]any `json:"metadata,omitempty"`
	// Dangling is set when the target does not exist (no concept has the
	// name, or no note is at the path); To is then "concept:<key>" or the
	// missing note's URI.
	Dangling bool `json:"dangling,omitempty"`
}

// Concept is a node of the knowledge graph named by WikiLinks.
type Concept struct {
	ID          string         `json:"id"`
	Label       string         `json:"label"`
	Key         string         `json:"key"`
	Aliases     []string       `json:"aliases"`
	Description string         `json:"description,omitempty"`
	Metadata    map[string]any `json:"metadata,omitempty"`
	// Page is the vault path of the concept's page, empty for an implicit concept.
	Page      string    `json:"page,omitempty"`
	Mentions  int       `json:"mentions"`
	CreatedAt time.Time `json:"created_at,omitzero"`
	UpdatedAt time.Time `json:"updated_at,omitzero"`
}

// ConceptID derives the stable id of the concept first seen under key: n is
// 1 for the key's own id, and n ≥ 2 for the n-th id when the earlier ones
// are taken (a concept first seen under this key was renamed, and a new one
// takes the key). It depends on the key alone, so a rebuilt index assigns
// the same ids; once a concept has a page, the id written in the page's
// front matter wins, which keeps it stable across renames.
func ConceptID(key string, n int) string {
	if n > 1 {
		key = fmt.Sprintf("%s\x00%d", key, n)
	}
	sum := sha256.Sum256([]byte(key))
	return "c_" + strings.ToLower(base32.StdEncoding.WithPadding(base32.NoPadding).EncodeToString(sum[:10]))
}

// NoteConcept is a concept a note links, with what else holds it.
type NoteConcept struct {
	ID, Label string
	// Notes is how many notes link the concept, this one included,
	// counted up to 2: whether another note links it is what a write's
	// feedback asks, and a hub's tens of thousands are not counted.
	Notes int
	// HasPage is whether the concept has a page.
	HasPage bool
}

// LinkedConcept is a concept a note links, as a write reports it: whether
// the write brought it into the vault, and when it did, the existing
// concepts it may duplicate.
type LinkedConcept struct {
	ID    string `json:"id"`
	Label string `json:"label"`
	// New is true when this write created the concept: no other note
	// links it, it has no page, and the note did not link it before.
	New bool `json:"new"`
	// NearDuplicates are up to three existing concepts close to a new one
	// in spelling or meaning.
	NearDuplicates []NearDuplicate `json:"near_duplicates,omitempty"`
}

// NearDuplicate is an existing concept that a new one may duplicate.
type NearDuplicate struct {
	ID    string `json:"id"`
	Label string `json:"label"`
	// Spelling is the find_concepts score (WRatio, 0-100); 0 when the
	// spelling did not qualify.
	Spelling float64 `json:"spelling,omitempty"`
	// Meaning is the embedding cosine similarity; 0 when not computed or
	// below the threshold.
	Meaning float64 `json:"meaning,omitempty"`
}

// NoteSummary is one note in a listing, as the index knows it.
type NoteSummary struct {
	URI      string    `json:"uri"`
	Path     string    `json:"path"`
	Title    string    `json:"title"`
	Tags     []string  `json:"tags"`
	Size     int64     `json:"size"`
	Checksum string    `json:"checksum"`
	Modified time.Time `json:"modified"`
	Accessed time.Time `json:"accessed,omitzero"`
}

// NoteQuery selects and orders a page of notes in the index.
type NoteQuery struct {
	// Folder keeps notes under this vault-relative folder (no slash at
	// either end); empty keeps all.
	Folder string
	// Tag keeps notes with this tag, compared case-insensitively; empty
	// keeps all.
	Tag string
	// Since, when not nil, keeps notes whose latest activity (modification
	// or explicit read) is at or after it.
	Since *time.Time
	// ByActivity orders by latest activity, newest first, then by path;
	// otherwise notes are ordered by path.
	ByActivity bool
	// Offset skips that many notes; Limit is the page size.
	Offset, Limit int
}
