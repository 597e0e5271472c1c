package noema

// This file holds the ports of the search service (package search): what it
// reads of the index, and the types those reads carry.

import (
	"context"
	"time"
)

// SearchFilter selects the notes a search may return. The zero SearchFilter admits
// every note.
type SearchFilter struct {
	// Folder admits the notes under this vault folder (no slashes at
	// either end; "" for all).
	Folder string
	// Tags admits notes carrying every one of these tags (case-insensitive;
	// a tag also admits its nested tags: "project" admits "project/x").
	Tags []string
	// Since admits notes modified or explicitly read at or after it (zero:
	// no limit), as recent_activity counts activity.
	Since time.Time
}

// IsZero reports whether f admits every note.
func (f SearchFilter) IsZero() bool { return f.Folder == "" && len(f.Tags) == 0 && f.Since.IsZero() }

// TextQuery is a full-text query for [TextIndex.SearchText], built by the
// query sanitiser: its expressions are valid FTS5 whatever the user typed.
type TextQuery struct {
	// Match is the FTS5 expression a note must match.
	Match string
	// Bonus is an FTS5 expression whose matches add their bm25 to the
	// note's (the phrase and proximity bonus); notes matching only Bonus
	// are hits too. BM25 is a sum over the expression's phrases, so the
	// score is that of "Match OR Bonus", but the phrase and NEAR checks run
	// only where their terms meet rather than on every note matching Match.
	Bonus string
	// All is the FTS5 expression of every term together ("" when the query
	// has one term): notes matching it rank above the rest, then BM25
	// decides.
	All string
	// EveryFirst asks for the notes matching All to be ranked on their
	// own first (one query over the intersection of the terms' doclists):
	// when they fill Limit, no note holding only some of the terms is
	// scored. The answer is the same either way; the search sets it when
	// the terms are common enough for the every-term notes to be likely
	// to fill Limit. Set it only when Match is the OR of All's terms (none
	// left out): a note's BM25 under All is then its BM25 under Match.
	EveryFirst bool
	// BonusHoldsAll reports that every note matching Bonus holds every
	// term of the query, so it matches Match and All: the bonus notes are
	// found by one query ("Bonus AND Match") with no every-term lookup.
	BonusHoldsAll bool
	// Together asks for Match and Bonus to be ranked as one expression
	// ("Match OR Bonus"): FTS5 then checks the bonus's positions on every
	// note holding a term, which costs less than a second query when the
	// terms are rare. The answer is the same either way.
	Together bool
	// Few reports that Match is expected to find at most Limit notes
	// (by counts the caller keeps, which may be stale): SearchText then
	// reads them unsorted and sorts them itself, which costs less than
	// SQLite's sorter for a few hundred notes. The answer is the same
	// either way.
	Few bool
	// Terms, when it holds two terms or more (at most 64), are the FTS5
	// expressions of Match's terms, one phrase each, Match being their OR
	// in this order: SearchText then ranks each term on its own, in one
	// statement, and adds up each note's scores in Go — the sum FTS5 takes
	// for Match, phrase by phrase, so the answer is the same — which
	// tells, at no cost, which terms each note holds: the notes holding
	// every one are the every-term tier (no lookup), and each hit says
	// which its body holds (TextHit.BodyTerms). It costs less than
	// Together's ranking when the terms are rare (a few hundred notes);
	// with a Bonus only when BonusHoldsAll (and All, which scores the
	// every-term tier with it). Few and Bodies are then not used (no body
	// is read in the ranking).
	Terms []string
	// Weights are the BM25 weights of the title, body and cjk columns.
	Weights [3]float64
	Filter  SearchFilter
	// Limit is how many hits to return, best first.
	Limit int
	// Bodies asks for the indexed body of the best Bodies hits
	// (TextHit.Body) where the ranking statement can read them: the search
	// needs them for the passage lift and the snippets, and reading them
	// there saves a statement. Hits without theirs have HasBody false.
	Bodies int
	// Versions, when not nil, asks for the index's text version
	// (SearchTextVersion) and the concept registry's (SearchConceptsVersion)
	// to be read in the ranking statement, the hits' own snapshot, and
	// stored there: a search then needs no statement of its own for them.
	// Versions.Read reports whether they were (only where one statement
	// ranks).
	Versions *IndexVersions
}

// IndexVersions are the index's text version and the concept registry's
// version as one statement read them (see TextQuery.Versions).
type IndexVersions struct {
	Text     int64
	Concepts string
	Read     bool
}

// TextHit is one note matching a TextQuery.
type TextHit struct {
	ID int64
	// All reports that the note matches TextQuery.All (every term).
	All bool
	// BM25 is FTS5's bm25() with the query's weights: lower is better
	// (negative).
	BM25 float64
	// Note is the note itself (its ID is ID).
	Note SearchNote
	// Body is the note's indexed body when HasBody (see TextQuery.Bodies).
	Body    string
	HasBody bool
	// BodyTerms, when TermsRead (TextQuery.Terms), has bit i set when
	// the index finds TextQuery.Terms[i] in the note's body and cjk
	// columns: the title's words are not the body's, but the cjk column
	// holds the CJK bigrams of the title with the body's.
	BodyTerms uint64
	TermsRead bool
}

// SearchNote is what a search shows of a note and weighs it by.
type SearchNote struct {
	ID    int64
	Path  string
	Title string
	// Modified is the front matter `modified`, else the file's mtime.
	Modified time.Time
	// Accessed is the latest explicit read (zero when never read).
	Accessed time.Time
}

// ChunkVector is the stored vector of one note chunk.
type ChunkVector struct {
	NoteID int64
	// Idx is the chunk's position in the note; Start and End its byte
	// range in the note's body.
	Idx, Start, End int
	Vec             []float32
}

// SearchConcept is a concept a `[[X]]` query resolves to.
type SearchConcept struct {
	ID, Label string
	// Keys are the keys of its label and aliases.
	Keys []string
}

// TextIndex is the full-text side of the index.
type TextIndex interface {
	// SearchText returns the best q.Limit notes matching q.Match or
	// q.Bonus and admitted by q.Filter: those matching q.All first, then by BM25, then
	// by path.
	SearchText(ctx context.Context, q TextQuery) ([]TextHit, error)
	// SearchTermDocs returns how many notes match each FTS5 expression,
	// and how many notes there are. A count may stop at half of the notes
	// (rounded up): the caller only asks whether a term is in half of them.
	SearchTermDocs(ctx context.Context, exprs []string) (docs []int, total int, err error)
	// SearchTextVersion returns a number that changes whenever any note's
	// full-text row changes.
	SearchTextVersion(ctx context.Context) (int64, error)
	// SearchBodies returns the indexed body text of each note among ids.
	SearchBodies(ctx context.Context, ids []int64) (map[int64]string, error)
	// SearchBodyTerms returns, for each note among ids whose body holds
	// any of terms (FTS5 expressions, one phrase each, at most 64), those
	// it holds, bit i for terms[i]: as TextHit.BodyTerms says of a
	// per-term ranking's hits (its body and cjk columns), for the hits of
	// any other ranking.
	SearchBodyTerms(ctx context.Context, terms []string, ids []int64) (map[int64]uint64, error)
}

// SearchNoteIndex reads notes for filtering, decay and display.
type SearchNoteIndex interface {
	// SearchNotes returns each note among ids that exists, by id.
	SearchNotes(ctx context.Context, ids []int64) (map[int64]SearchNote, error)
	// SearchFilterIDs returns the ids of the notes f admits.
	SearchFilterIDs(ctx context.Context, f SearchFilter) (map[int64]bool, error)
}

// ChunkVectorIndex reads the note chunks' stored vectors.
type ChunkVectorIndex interface {
	// SearchChunksVersion returns a number that changes whenever any note's
	// chunks change (written, re-embedded or deleted).
	SearchChunksVersion(ctx context.Context) (int64, error)
	// SearchChunkStates returns, by note id, the note hash its chunks were
	// cut from, for the notes whose chunks were stored under key (the
	// model and the chunking scheme, as PutChunks got it).
	SearchChunkStates(ctx context.Context, key string) (map[int64]string, error)
	// SearchChunkVectors calls fn with every chunk of the notes among ids
	// that has a vector of model. The vector fn gets is valid until fn
	// returns: fn copies what it keeps.
	SearchChunkVectors(ctx context.Context, model string, ids []int64, fn func(ChunkVector)) error
	// SearchChunkCount returns how many note chunks the index holds, with
	// a vector or not (a loader's capacity hint).
	SearchChunkCount(ctx context.Context) (int, error)
}

// SearchConceptIndex resolves `[[X]]` queries.
type SearchConceptIndex interface {
	// SearchConcept returns the concept owning key (as its label or an
	// alias); ok is false when none does.
	SearchConcept(ctx context.Context, key string) (c SearchConcept, ok bool, err error)
	// SearchConceptNotes returns the notes admitted by f that link the
	// concept, or are its page, in no particular order.
	SearchConceptNotes(ctx context.Context, conceptID string, f SearchFilter) ([]SearchNote, error)
	// SearchConceptsVersion returns a value that changes whenever the
	// concept registry (labels, aliases) changes.
	SearchConceptsVersion(ctx context.Context) (string, error)
	// SearchConceptKeys calls fn with the key of every concept's label and
	// alias and the concept's id.
	SearchConceptKeys(ctx context.Context, fn func(key, conceptID string)) error
}

// SearchIndex is everything the search service (package search) reads;
// sqlite.SearchIndex implements it.
type SearchIndex interface {
	TextIndex
	SearchNoteIndex
	ChunkVectorIndex
	SearchConceptIndex
}
