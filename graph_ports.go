package noema

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"time"
)

// The graph index: the ports package graph reads the knowledge graph
// through (export, get_node, neighbors, subgraph, analyze_graph), and the
// nodes and edges they carry. Package graph's documentation describes how
// nodes and edges are built (ids, kinds, weights, dangling relations).

// Node kinds of a [GraphNode].
const (
	NodeNote    = "note"
	NodeConcept = "concept"
)

// Edge kinds of a [GraphEdge]. A mentions edge also has the type
// [TypeMentions].
const (
	EdgeMentions = "mentions"
	EdgeRelation = "relation"
	TypeMentions = "mentions"
)

// GraphNode is a note or a concept. Fields that do not apply to its kind
// are left empty and omitted from JSON.
type GraphNode struct {
	ID    string `json:"id"`
	Kind  string `json:"kind"`
	Label string `json:"label"`
	// Aliases are the note's or the concept's alternative names (never nil
	// on a node read from the index).
	Aliases []string `json:"aliases,omitzero"`

	// Path is a note's vault-relative path (with .md).
	Path string `json:"path,omitempty"`
	// Tags are a note's tags (never nil on a note).
	Tags []string `json:"tags,omitzero"`
	// Created and Modified are a note's front-matter times, else the file's
	// modification time, in UTC.
	Created  time.Time `json:"created,omitzero"`
	Modified time.Time `json:"modified,omitzero"`
	// Checksum is the hash of the note's content.
	Checksum string `json:"checksum,omitempty"`

	// Key is a concept's normalized label.
	Key         string `json:"key,omitempty"`
	Description string `json:"description,omitempty"`
	// Metadata is a concept's metadata, a canonical JSON object.
	Metadata json.RawMessage `json:"metadata,omitempty"`
	// Page is the memory:// URI of the concept's page, if it has one.
	Page string `json:"page,omitempty"`
	// CreatedAt and UpdatedAt are a concept's times in UTC (page front
	// matter, else the earliest and latest of the notes that mention it).
	CreatedAt time.Time `json:"created_at,omitzero"`
	UpdatedAt time.Time `json:"updated_at,omitzero"`

	// Degree is set by graph.GetNode only.
	Degree *GraphDegree `json:"degree,omitempty"`
}

// GraphEdge is a directed edge: a mention or a typed relation.
type GraphEdge struct {
	ID     string `json:"id"`
	Kind   string `json:"kind"`
	Source string `json:"source"`
	Target string `json:"target"`
	Type   string `json:"type"`
	// Weight is a mention's link count, or a relation's declared weight
	// (nil when the relation declares none).
	Weight *float64 `json:"weight,omitempty"`
	// Metadata is a relation's metadata, a canonical JSON object.
	Metadata json.RawMessage `json:"metadata,omitempty"`
	// Dangling reports a relation whose target does not exist; Target is
	// then "concept:<key>" or the missing note's URI.
	Dangling bool `json:"dangling,omitempty"`
	// Position orders a note's mentions: the ordinal, among the note's
	// distinct link spellings, of its first link to the concept (0, and
	// omitted, for the first). The concept graph joins two concepts a
	// note mentions only when they are near in this order
	// (graph.CooccurrenceWindow).
	Position int `json:"position,omitempty"`
}

// GraphDegree counts the edges at a node by direction and kind. Mentions
// count edges (one per note–concept pair), not links; dangling relations
// count as out-edges of their source.
type GraphDegree struct {
	In  GraphDegreeCount `json:"in"`
	Out GraphDegreeCount `json:"out"`
}

// GraphDegreeCount is the number of edges of each kind in one direction.
type GraphDegreeCount struct {
	Mentions  int `json:"mentions"`
	Relations int `json:"relations"`
}

// NoteURI returns the id of the note at a vault path: its memory:// URI,
// the path without .md.
func NoteURI(path string) string {
	return URIScheme + strings.TrimSuffix(path, ".md")
}

// GraphIndex is the index the graph is read from.
type GraphIndex interface {
	// ReadGraph runs fn with a GraphReader on one consistent snapshot of
	// the index and returns fn's error.
	ReadGraph(ctx context.Context, fn func(r GraphReader) error) error
}

// GraphReader reads nodes and edges from one snapshot of the index. Lists
// come in no particular order.
type GraphReader interface {
	// HasNote reports whether a note is indexed at the vault path.
	HasNote(ctx context.Context, path string) (bool, error)
	// HasConcept reports whether a concept has the id.
	HasConcept(ctx context.Context, id string) (bool, error)
	// Notes reads the note nodes at the vault paths (unknown paths are
	// skipped), or every note when paths is nil.
	Notes(ctx context.Context, paths []string) ([]GraphNode, error)
	// Concepts reads the concept nodes with the ids (unknown ids are
	// skipped), or every concept when ids is nil.
	Concepts(ctx context.Context, ids []string) ([]GraphNode, error)
	// AllMentions reads every mentions edge.
	AllMentions(ctx context.Context) ([]GraphEdge, error)
	// Mentions reads the mentions edges from the notes at paths or to the
	// concepts, each once; with induced, only those from one of the notes
	// to one of the concepts.
	Mentions(ctx context.Context, paths, concepts []string, induced bool) ([]GraphEdge, error)
	// AllRelations reads every relation edge, dangling ones included.
	AllRelations(ctx context.Context) ([]GraphEdge, error)
	// Relations reads the relation edges declared by the notes at paths or
	// in the pages of the concepts and, unless declaredOnly, those
	// pointing at them (through any key of a concept), each once.
	Relations(ctx context.Context, paths, concepts []string, declaredOnly bool) ([]GraphEdge, error)
}

// GraphSource is what the graph analyses (analyze_graph) read: the graph,
// and a version that changes whenever the graph may have changed.
type GraphSource interface {
	GraphIndex
	// GraphVersion returns a value that differs whenever the notes, their
	// links and relations, or the concept registry may have changed since
	// the last call that returned it. Analyses are cached until it changes.
	GraphVersion(ctx context.Context) (string, error)
}

// ConceptLinks is what the concept graph is built from, as an index can
// read it faster than a whole export ([ConceptLinker]).
type ConceptLinks struct {
	// IDs and Labels are every concept's, ascending by id.
	IDs, Labels []string
	// Notes lists, for each note, the numbers (indexes into IDs) of the
	// concepts it mentions in the order of their first mention; repeats
	// are allowed (only the first counts, see [FirstMentions]).
	Notes [][]int32
	// Relations are relation edges; those whose ends are not both
	// concepts, and dangling ones, are ignored.
	Relations []GraphEdge
}

// ConceptLinker is a [GraphSource] that reads [ConceptLinks] directly, in
// one snapshot; the graph analyses then build the concept graph from it
// rather than from a whole export.
type ConceptLinker interface {
	ConceptLinks(ctx context.Context) (*ConceptLinks, error)
}

// FirstMentions returns xs without repeats, each at its first place: the
// order of first mention that [ConceptLinks] and a mention graph's notes
// keep.
func FirstMentions[T comparable](xs []T) []T {
	out := make([]T, 0, len(xs))
	if len(xs) <= 64 { // a normal note: a scan beats a map
		for _, x := range xs {
			if !slices.Contains(out, x) {
				out = append(out, x)
			}
		}
		return out
	}
	seen := make(map[T]bool, len(xs))
	for _, x := range xs {
		if !seen[x] {
			seen[x] = true
			out = append(out, x)
		}
	}
	return out
}
