package importer

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/noema-mem/noema"
	"github.com/noema-mem/noema/vault"
)

// mem0 (mem0ai/mem0) returns a user's memories from get_all as
//
//	{"results": [{"id": "…", "memory": "Prefers tea", "user_id": "alex",
//	  "agent_id": null, "created_at": "2024-07-20T09:05:00.123456-07:00",
//	  "updated_at": …, "metadata": {…}, "categories": ["food"], "hash": "…"}]}
//
// (older versions return the list itself, and a saved export may hold it
// under "memories").

// Mem0Folder is the vault folder a mem0 import writes its notes under.
const Mem0Folder = "mem0/"

// Mem0Memory is one memory of a mem0 export.
type Mem0Memory struct {
	ID         string         `json:"id"`
	Memory     string         `json:"memory"`
	UserID     string         `json:"user_id"`
	AgentID    string         `json:"agent_id"`
	RunID      string         `json:"run_id"`
	AppID      string         `json:"app_id"`
	CreatedAt  time.Time      `json:"-"`
	UpdatedAt  time.Time      `json:"-"`
	Metadata   map[string]any `json:"metadata"`
	Categories []string       `json:"categories"`
	// Index is the memory's place in the file (from 1).
	Index int `json:"-"`
}

// Record names the memory for messages: "memory 3 (id 1a2b…)".
func (m *Mem0Memory) Record() string {
	if m.ID == "" {
		return fmt.Sprintf("memory %d", m.Index)
	}
	return fmt.Sprintf("memory %d (id %s)", m.Index, m.ID)
}

// mem0Record is a memory as decoded: pointers tell a missing field from
// an empty one; the ids may be null.
type mem0Record struct {
	ID         *string        `json:"id"`
	Memory     *string        `json:"memory"`
	UserID     *string        `json:"user_id"`
	AgentID    *string        `json:"agent_id"`
	RunID      *string        `json:"run_id"`
	AppID      *string        `json:"app_id"`
	CreatedAt  *string        `json:"created_at"`
	UpdatedAt  *string        `json:"updated_at"`
	Metadata   map[string]any `json:"metadata"`
	Categories []string       `json:"categories"`
}

// ParseMem0 reads a mem0 export: a JSON list of memories, or an object
// holding one under "results" or "memories". Each needs a string "id" and
// "memory"; times must be ISO 8601. Anything else — invalid UTF-8, a
// truncated file, a memory of another shape — is an invalid_argument error
// naming the memory (or the line), and a file above [MaxInputBytes] is
// too_large.
func ParseMem0(r io.Reader) ([]Mem0Memory, error) {
	data, err := readBounded(r, "the mem0 export")
	if err != nil {
		return nil, err
	}
	if !utf8.Valid(data) {
		return nil, inputError(noema.EINVALID, lineAt(data, firstInvalid(data)), "not valid UTF-8")
	}
	var list []json.RawMessage
	if err := json.Unmarshal(data, &list); err != nil {
		var wrapped map[string]json.RawMessage
		if err2 := json.Unmarshal(data, &wrapped); err2 != nil {
			return nil, jsonError(data, err)
		}
		inner, ok := wrapped["results"]
		if !ok {
			inner, ok = wrapped["memories"]
		}
		if !ok {
			return nil, noema.Errorf(noema.EINVALID, `the mem0 export holds no list of memories (want a JSON list, or an object with "results" or "memories")`)
		}
		if err := json.Unmarshal(inner, &list); err != nil {
			return nil, noema.Errorf(noema.EINVALID, `the mem0 export's memories are not a JSON list`)
		}
	}
	out := make([]Mem0Memory, 0, len(list))
	for i, raw := range list {
		m, err := parseMem0Memory(raw, i+1)
		if err != nil {
			return nil, err
		}
		out = append(out, m)
	}
	return out, nil
}

func parseMem0Memory(raw json.RawMessage, index int) (Mem0Memory, error) {
	m := Mem0Memory{Index: index}
	var rec mem0Record
	if err := json.Unmarshal(raw, &rec); err != nil {
		return m, inputError(noema.EINVALID, m.Record(), "not a memory object (%s)", jsonProblem(err))
	}
	if rec.ID == nil || *rec.ID == "" || rec.Memory == nil {
		if rec.ID != nil {
			m.ID = *rec.ID
		}
		return m, inputError(noema.EINVALID, m.Record(), `a memory needs a string "id" and "memory"`)
	}
	m.ID, m.Memory = *rec.ID, *rec.Memory
	for _, f := range []struct {
		dst  *string
		src  *string
		what string
	}{{&m.UserID, rec.UserID, "user_id"}, {&m.AgentID, rec.AgentID, "agent_id"}, {&m.RunID, rec.RunID, "run_id"}, {&m.AppID, rec.AppID, "app_id"}} {
		if f.src == nil || *f.src == "" {
			continue
		}
		if err := checkName(m.Record(), f.what, *f.src); err != nil {
			return m, err
		}
		*f.dst = *f.src
	}
	if err := checkName(m.Record(), "the id", m.ID); err != nil {
		return m, err
	}
	if strings.ContainsRune(m.Memory, 0) {
		return m, inputError(noema.EINVALID, m.Record(), "the memory contains a NUL character")
	}
	for _, f := range []struct {
		dst  *time.Time
		src  *string
		what string
	}{{&m.CreatedAt, rec.CreatedAt, "created_at"}, {&m.UpdatedAt, rec.UpdatedAt, "updated_at"}} {
		if f.src == nil || *f.src == "" {
			continue
		}
		t, err := parseTime(*f.src)
		if err != nil {
			return m, inputError(noema.EINVALID, m.Record(), "%s %q is not an ISO 8601 time", f.what, *f.src)
		}
		*f.dst = t.UTC()
	}
	m.Metadata, m.Categories = rec.Metadata, rec.Categories
	return m, nil
}

// parseTime reads the times mem0 writes: RFC 3339 with or without a zone
// (no zone means UTC), with a space or a T.
func parseTime(s string) (time.Time, error) {
	s = strings.Replace(strings.TrimSpace(s), " ", "T", 1)
	for _, layout := range []string{time.RFC3339Nano, "2006-01-02T15:04:05.999999999", "2006-01-02"} {
		if t, err := time.Parse(layout, s); err == nil {
			return t, nil
		}
	}
	return time.Time{}, errors.New("not a time")
}

// jsonError names the line of a JSON syntax error in data.
func jsonError(data []byte, err error) error {
	if se, ok := errors.AsType[*json.SyntaxError](err); ok {
		return inputError(noema.EINVALID, lineAt(data, int(se.Offset)), "not valid JSON (truncated or malformed: %s)", jsonProblem(err))
	}
	if errors.Is(err, io.ErrUnexpectedEOF) || strings.Contains(err.Error(), "unexpected end of JSON input") {
		return inputError(noema.EINVALID, lineAt(data, len(data)), "not valid JSON (truncated: the file ends inside a value)")
	}
	return noema.Errorf(noema.EINVALID, "the mem0 export is not a JSON list or object (%s)", jsonProblem(err))
}

// lineAt names the line of byte offset off in data.
func lineAt(data []byte, off int) string {
	off = min(max(off, 0), len(data))
	return fmt.Sprintf("line %d", bytes.Count(data[:off], []byte("\n"))+1)
}

func firstInvalid(data []byte) int {
	for i := 0; i < len(data); {
		r, n := utf8.DecodeRune(data[i:])
		if r == utf8.RuneError && n <= 1 {
			return i
		}
		i += n
	}
	return len(data)
}

// ImportMem0 imports a mem0 export: each memory one dated note,
// mem0/<user>/<YYYY-MM-DD> <first words>.md, its text the note's body, its
// id, owner ids, times, categories and metadata in its front matter. A
// memory whose id a note under mem0/ already records is skipped.
func (s *Service) ImportMem0(ctx context.Context, r io.Reader, opts Options) (*Report, error) {
	mems, err := ParseMem0(r)
	if err != nil {
		return nil, err
	}
	seen := map[string]int{}
	for _, m := range mems {
		if prev, ok := seen[m.ID]; ok {
			return nil, inputError(noema.ECONFLICT, m.Record(), "memory %d has the same id", prev)
		}
		seen[m.ID] = m.Index
	}
	return s.run(ctx, SourceMem0, opts, func(ctx context.Context, p *plan) error {
		have, err := p.mem0IDs(ctx)
		if err != nil {
			return err
		}
		for _, m := range mems {
			if err := p.mem0Memory(m, have); err != nil {
				return err
			}
		}
		return nil
	})
}

// mem0IDs maps the mem0 ids the notes under mem0/ record to their paths.
func (p *plan) mem0IDs(ctx context.Context) (map[string]string, error) {
	ids := map[string]string{}
	err := p.s.Vault.Walk(ctx, func(rel string, _ fs.FileInfo) error {
		if !strings.HasPrefix(rel, Mem0Folder) {
			return nil
		}
		data, _, err := p.s.Vault.ReadFile(rel)
		if err != nil {
			return nil // gone since, or unreadable: not one of ours
		}
		fmSrc, _, _, _ := vault.SplitFrontMatter(data)
		fm, err := vault.ParseFrontMatter(fmSrc)
		if err != nil {
			return nil
		}
		if id, ok := fm.Get("mem0_id"); ok {
			ids[fmt.Sprint(id)] = rel
		}
		return nil
	})
	return ids, err
}

// mem0Memory plans m's note.
func (p *plan) mem0Memory(m Mem0Memory, have map[string]string) error {
	it := Item{Kind: KindMemory, Name: firstWords(m.Memory, 12), Record: m.Record()}
	if rel, ok := have[m.ID]; ok {
		it.URI = noema.NoteURI(rel)
		p.skip(it, "a note records its id already")
		return nil
	}
	owner := "unknown"
	switch {
	case m.UserID != "":
		owner = m.UserID
	case m.AgentID != "":
		owner = "agent " + m.AgentID
	}
	date := "undated"
	if !m.CreatedAt.IsZero() {
		date = m.CreatedAt.Format(time.DateOnly)
	}
	title := strings.TrimSpace(date + " " + strings.TrimSuffix(firstWords(m.Memory, 8), "…"))
	folder := Mem0Folder + vault.FileName(owner) + "/"
	stem := vault.FileName(title)
	var rel string
	for n := 1; ; n++ {
		rel = vault.NumberedName(folder, stem, n)
		if _, planned := p.files[rel]; planned {
			continue // another memory of this import
		}
		_, exists, err := p.read(rel)
		if err != nil {
			return err
		}
		if exists {
			return inputError(noema.ECONFLICT, m.Record(), "its note would be %s, which holds a note that is not this memory; move that note", rel)
		}
		break
	}
	if err := vault.CheckPortableName(rel); err != nil {
		return inputError(noema.EINVALID, m.Record(), "%s", noema.ErrorMessage(err))
	}
	fm := vault.NewFrontMatter()
	set := func(k string, v any) error { return fm.Set(k, v) }
	fields := []struct {
		key  string
		val  any
		keep bool
	}{
		{"title", title, true},
		{"created", m.CreatedAt.Format(time.RFC3339), !m.CreatedAt.IsZero()},
		{"updated", m.UpdatedAt.Format(time.RFC3339), !m.UpdatedAt.IsZero()},
		{"tags", []string{"mem0"}, true},
		{"mem0_id", m.ID, true},
		{"user_id", m.UserID, m.UserID != ""},
		{"agent_id", m.AgentID, m.AgentID != ""},
		{"run_id", m.RunID, m.RunID != ""},
		{"app_id", m.AppID, m.AppID != ""},
		{"categories", m.Categories, len(m.Categories) > 0},
		{"metadata", m.Metadata, len(m.Metadata) > 0},
	}
	for _, f := range fields {
		if f.keep {
			if err := set(f.key, f.val); err != nil {
				return inputError(noema.EINVALID, m.Record(), "its %s cannot be kept: %s", f.key, noema.ErrorMessage(err))
			}
		}
	}
	content, err := vault.Join(fm, []byte(strings.TrimSpace(m.Memory)+"\n"))
	if err != nil {
		return inputError(noema.EINVALID, m.Record(), "cannot be written: %v", err)
	}
	it.URI = noema.NoteURI(rel)
	p.created(it)
	return p.write(rel, content)
}

// firstWords returns the first n words of text, one line.
func firstWords(text string, n int) string {
	w := strings.Fields(text)
	if len(w) > n {
		return strings.Join(w[:n], " ") + "…"
	}
	return strings.Join(w, " ")
}
