package tools

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"reflect"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/noema-mem/noema"
)

// Token budgets (docs/budgets.md). Every answer that lists things keeps to
// max_tokens: DefaultMaxTokens unless the call asks for another budget
// between MinMaxTokens and MaxMaxTokens. The budget is of the whole answer
// a client receives — the text rendering and the structured result
// together, as serialized — estimated by EstimateTokens.
const (
	DefaultMaxTokens = 4000
	MinMaxTokens     = 1000
	MaxMaxTokens     = 100000
)

// The max_tokens and cursor parameters, as every budgeted tool declares them.
const (
	maxTokensHelp = "the most tokens this answer may take, text and structured result together (estimated, an overestimate of cl100k/o200k counts); what does not fit is left for the next page (default 4000, 1000-100000)"
	cursorHelp    = "next_cursor of the previous answer: its next page (with the same other arguments)"
)

// Budget is what a budgeted answer says about its size and what is left.
type Budget struct {
	// MaxTokens is the budget this answer kept to (0: none was asked for).
	MaxTokens int `json:"max_tokens" jsonschema:"the budget this answer kept to, in tokens (0: none)"`
	// Tokens estimates the whole answer's size (EstimateTokens); 0 when
	// no budget was asked for.
	Tokens int `json:"tokens" jsonschema:"the estimated size of this whole answer in tokens (text and structured result)"`
	// Truncated is set when the budget, not the end of the list or the
	// page size, ended this page.
	Truncated bool `json:"truncated" jsonschema:"true when max_tokens ended this answer early: pass next_cursor for the rest"`
	// Omitted counts the items left for later pages, by list, when the
	// budget cut them.
	Omitted map[string]int `json:"omitted,omitempty" jsonschema:"items the budget left for later pages, by list"`
	// Shortened names the fields a lone item too big for the budget had
	// shortened ("…" marks the cut) so that it could still be returned.
	Shortened []string `json:"shortened,omitempty" jsonschema:"fields shortened (cut with …) because one item alone exceeded max_tokens"`
	// NextCursor continues the answer; empty when nothing is left.
	NextCursor string `json:"next_cursor,omitempty" jsonschema:"pass as cursor, with the same other arguments, for the next page; absent when nothing is left"`
}

// text renders the budget line of a text rendering, when the budget cut
// or shortened something or more pages follow.
func (b *Budget) text(w io.Writer) {
	if !b.cut() {
		return
	}
	fmt.Fprintf(w, "~%d of max %d tokens", b.Tokens, b.MaxTokens)
	if len(b.Shortened) > 0 {
		fmt.Fprintf(w, "; shortened to fit: %s", strings.Join(b.Shortened, ", "))
	}
	if b.Truncated {
		fmt.Fprint(w, "; truncated by max_tokens")
	}
	if b.NextCursor != "" {
		fmt.Fprintf(w, "; more with cursor %s", b.NextCursor)
	}
	fmt.Fprintln(w)
}

// cut reports whether the answer is not all there is: items left for
// later pages, or shortened.
func (b *Budget) cut() bool { return b.Truncated || len(b.Shortened) > 0 || b.NextCursor != "" }

// answerTokens estimates the size of the answer a client receives for out:
// the MCP tool result holding text's rendering as text content and out as
// structured content, as serialized on the wire.
func answerTokens[Out any](out Out, text func(io.Writer, Out)) int {
	var b strings.Builder
	text(&b, out)
	// As the SDK sends them: both HTML escaped (json.Marshal), the
	// structured content as the map it validates (keys sorted).
	rendered, _ := json.Marshal(b.String())
	structured, err := json.Marshal(out)
	if err != nil {
		return MaxMaxTokens + 1 // never kept as fitting
	}
	var m any
	if err := json.Unmarshal(structured, &m); err == nil {
		if b, err := json.Marshal(m); err == nil {
			structured = b
		}
	}
	return EstimateTokens(rendered) + EstimateTokens(structured) + envelopeTokens
}

// envelopeTokens is what the answer's own envelope takes, counted high:
// the JSON-RPC response and tool result around the two contents, the
// text content's type, and the _meta the SDK adds (the server's name,
// title and version).
const envelopeTokens = 100

// budgetOf returns the budget a call asked for: 0 (none) stays 0 only where
// the command line asks for a whole answer; the MCP schema's default and
// minimum keep every MCP call at MinMaxTokens or more.
func budgetOf(maxTokens int) (int, error) {
	if maxTokens < 0 {
		return 0, noema.Errorf(noema.EINVALID, "max_tokens must not be negative").WithParam("max_tokens")
	}
	if maxTokens > 0 && maxTokens < MinMaxTokens {
		return 0, noema.Errorf(noema.EINVALID, "max_tokens must be at least %d", MinMaxTokens).WithParam("max_tokens")
	}
	return min(maxTokens, MaxMaxTokens), nil
}

// A cursor is where the next page of one tool's answer to one set of
// arguments starts: an offset per list (one for most tools; one per
// section for build_context and export_graph). It is opaque to clients:
// base64url of "v1|tool|fingerprint|offsets". The fingerprint is a hash
// of the arguments that choose and order the items (not the paging ones),
// so a cursor passed with other arguments, or to another tool, is refused
// rather than silently paging a different list.
type cursor struct {
	tool    string
	print   string
	offsets []int
}

const cursorVersion = "v1"

// fingerprint hashes the arguments that define a list.
func fingerprint(args any) string {
	b, err := json.Marshal(args)
	if err != nil {
		panic(fmt.Sprintf("tools: fingerprint of %T: %v", args, err)) // arguments are JSON by construction
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:8])
}

func (c cursor) String() string {
	offs := make([]string, len(c.offsets))
	for i, o := range c.offsets {
		offs[i] = strconv.Itoa(o)
	}
	raw := strings.Join([]string{cursorVersion, c.tool, c.print, strings.Join(offs, ",")}, "|")
	return base64.RawURLEncoding.EncodeToString([]byte(raw))
}

// readCursor decodes s, a cursor tool returned for arguments with the
// fingerprint print, into its n offsets; "" is the first page (all zero).
// mismatch, when not "", is the message of a cursor made for another
// fingerprint.
func readCursor(s, tool, print string, n int, mismatch ...string) ([]int, error) {
	offsets := make([]int, n)
	if s == "" {
		return offsets, nil
	}
	bad := func() error {
		return noema.Errorf(noema.EINVALID, "cursor %q is not a cursor %s returned: pass next_cursor as it came, or leave cursor out to start from the first page", clip(s, 40), tool).WithParam("cursor")
	}
	raw, err := base64.RawURLEncoding.DecodeString(s)
	if err != nil {
		return nil, bad()
	}
	parts := strings.Split(string(raw), "|")
	if len(parts) != 4 || parts[0] != cursorVersion {
		return nil, bad()
	}
	if parts[1] != tool {
		return nil, noema.Errorf(noema.EINVALID, "cursor was returned by %s, not %s: pass it to %s, or leave cursor out to start from the first page", parts[1], tool, parts[1]).WithParam("cursor")
	}
	if parts[2] != print && len(mismatch) > 0 {
		return nil, noema.Errorf(noema.EINVALID, "%s", mismatch[0]).WithParam("cursor")
	}
	if parts[2] != print {
		return nil, noema.Errorf(noema.EINVALID, "cursor was returned for other arguments: call again with the arguments of the call that returned it (only the page size and the budget may change), or leave cursor out to start over").WithParam("cursor")
	}
	offs := strings.Split(parts[3], ",")
	if len(offs) != n {
		return nil, bad()
	}
	for i, o := range offs {
		v, err := strconv.Atoi(o)
		if err != nil || v < 0 {
			return nil, bad()
		}
		offsets[i] = v
	}
	return offsets, nil
}

// clip shortens s to at most n runes, marking the cut with "…".
func clip(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n]) + "…"
}

// keptFields are the string fields that shorten never cuts: they name
// things a client passes back (a URI, an id), so a cut one would be wrong,
// not short.
var keptFields = map[string]bool{"uri": true, "id": true, "path": true, "source": true, "target": true, "other": true, "next_cursor": true, "kind": true, "type": true, "direction": true, "via": true}

// shortenMin is the fewest runes shorten leaves in a string it cuts.
const shortenMin = 24

// shorten cuts the longest free-text strings reachable from v (a pointer)
// by half, longest first, marking each cut with "…", until fits reports
// the answer fits or no string longer than shortenMin runes is left. It
// returns the JSON names of the fields it cut (prefix.name), sorted by
// first cut, and whether the answer fits.
func shorten(v any, prefix string, fits func() bool) ([]string, bool) {
	var cut []string
	for !fits() {
		longest, name := longestString(reflect.ValueOf(v), prefix)
		if !longest.IsValid() {
			return cut, false
		}
		r := []rune(strings.TrimSuffix(longest.String(), "…"))
		longest.SetString(string(r[:max(shortenMin, len(r)/2)]) + "…")
		if !containsString(cut, name) {
			cut = append(cut, name)
		}
	}
	return cut, true
}

func containsString(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// longestString finds the longest settable free-text string under v (not
// a kept field) longer than shortenMin runes, with its JSON path.
func longestString(v reflect.Value, path string) (reflect.Value, string) {
	var best reflect.Value
	var bestPath string
	bestLen := shortenMin
	var walk func(v reflect.Value, path string)
	walk = func(v reflect.Value, path string) {
		switch v.Kind() {
		case reflect.Pointer, reflect.Interface:
			if !v.IsNil() {
				walk(v.Elem(), path)
			}
		case reflect.Struct:
			t := v.Type()
			for i := range t.NumField() {
				f := t.Field(i)
				if !f.IsExported() {
					continue
				}
				name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
				if name == "-" || keptFields[name] {
					continue
				}
				p := path
				if !f.Anonymous || name != "" {
					if name == "" {
						name = f.Name
					}
					p = strings.TrimPrefix(path+"."+name, ".")
				}
				walk(v.Field(i), p)
			}
		case reflect.Slice:
			for i := range v.Len() {
				walk(v.Index(i), path)
			}
		case reflect.String:
			// A string already cut counts without its "…": cut to
			// shortenMin, it is as short as shorten makes it.
			if n := utf8.RuneCountInString(strings.TrimSuffix(v.String(), "…")); n > bestLen && v.CanSet() {
				best, bestPath, bestLen = v, path, n
			}
		}
	}
	walk(v, path)
	return best, bestPath
}

// A section is one list of a budgeted answer: the items from the cursor's
// offset on, of which the budget keeps a prefix.
type section struct {
	// name is the list's JSON name, as omitted and shortened report it.
	name string
	// n is how many items the answer could hold from offset on.
	n int
	// beyond is set when more items than these n follow (the page size
	// cut them): the next page starts after what this one keeps.
	beyond bool
	// keep keeps the first k of the n items in the answer.
	keep func(k int)
	// first returns a pointer to the first kept item, for shortening.
	first func() any
}

// fitSections keeps as many items as budget.MaxTokens allows, whole, in
// priority order: every item of the first section before any of the
// second, and so on; a section cut short leaves the sections after it
// empty, for later pages. A lone item bigger than the whole budget is
// returned shortened (shorten), and an answer whose own fields (an echoed
// query) exceed it has them shortened first; an item that cannot be made
// to fit is too_large, naming the budget it needs. offsets are where each
// section started (the cursor's); newCursor makes the next page's cursor.
// It fills in budget (tokens, truncated, omitted, shortened, next_cursor).
func fitSections[Out any](out Out, budget *Budget, text func(io.Writer, Out), offsets []int, newCursor func([]int) string, secs ...section) error {
	kept := make([]int, len(secs))
	next := func() []int {
		o := make([]int, len(secs))
		for i := range secs {
			o[i] = offsets[i] + kept[i]
		}
		return o
	}
	finish := func() {
		budget.Omitted, budget.Truncated, budget.NextCursor = nil, false, ""
		more := false
		for i, s := range secs {
			if kept[i] < s.n {
				budget.Truncated = true
				if budget.Omitted == nil {
					budget.Omitted = map[string]int{}
				}
				budget.Omitted[s.name] = s.n - kept[i]
			}
			more = more || kept[i] < s.n || s.beyond
		}
		if more {
			budget.NextCursor = newCursor(next())
		}
		if budget.MaxTokens == 0 {
			budget.Tokens = 0 // not measured: no budget was asked for (a whole export can be large)
			return
		}
		budget.Tokens = 1 << 30 // wider than the estimate: what is measured is an upper bound
		budget.Tokens = answerTokens(out, text)
	}
	if budget.MaxTokens == 0 {
		for i, s := range secs {
			s.keep(s.n)
			kept[i] = s.n
		}
		finish()
		return nil
	}
	// While fitting, the budget's own fields take their widest values.
	wide := make([]int, len(secs))
	for i := range wide {
		wide[i] = 1 << 30
	}
	budget.Tokens, budget.Truncated, budget.NextCursor = 1<<30, true, newCursor(wide)
	budget.Omitted = map[string]int{}
	for _, s := range secs {
		budget.Omitted[s.name] = 1 << 30
	}
	fits := func() bool { return answerTokens(out, text) <= budget.MaxTokens }
	for _, s := range secs {
		s.keep(0)
	}
	if !fits() {
		cut, ok := shorten(out, "", fits)
		budget.Shortened = append(budget.Shortened, cut...)
		if !ok {
			return noema.Errorf(noema.ETOOLARGE, "this answer is about %d tokens before any item, above max_tokens %d: raise max_tokens", answerTokens(out, text), budget.MaxTokens).WithParam("max_tokens")
		}
	}
	for i, s := range secs {
		lo, hi := 0, s.n // the largest k that fits
		s.keep(hi)
		if !fits() {
			hi--
			for lo < hi {
				mid := (lo + hi + 1) / 2
				s.keep(mid)
				if fits() {
					lo = mid
				} else {
					hi = mid - 1
				}
			}
		} else {
			lo = hi
		}
		if lo == 0 && s.n > 0 && !anyKept(kept) {
			// Nothing fits whole: the first item, shortened.
			s.keep(1)
			cut, ok := shorten(s.first(), s.name, fits)
			if !ok { // the answer's own fields too (what the envelope kept of a long query)
				var more []string
				more, ok = shorten(out, "", fits)
				cut = append(cut, more...)
			}
			budget.Shortened = append(budget.Shortened, cut...)
			if !ok {
				need := answerTokens(out, text)
				return noema.Errorf(noema.ETOOLARGE, "the first of the %s alone is about %d tokens even shortened, above max_tokens %d: ask for max_tokens %d or more", s.name, need, budget.MaxTokens, need).WithParam("max_tokens")
			}
			lo = 1
		}
		s.keep(lo)
		kept[i] = lo
		if lo < s.n {
			break // later sections wait for later pages
		}
	}
	finish()
	// The budget's own fields now hold their real values (what was
	// shortened among them, which the widest values could not foresee):
	// should the answer have grown past the budget, give back items from
	// the end, or shorten a lone one further.
	for budget.Tokens > budget.MaxTokens {
		last, total := -1, 0
		for i, k := range kept {
			if k > 0 {
				last = i
			}
			total += k
		}
		var target any = out
		name := ""
		if total > 1 {
			kept[last]--
			secs[last].keep(kept[last])
			finish()
			continue
		}
		if last >= 0 {
			target, name = secs[last].first(), secs[last].name
		}
		cut, ok := shorten(target, name, fits)
		for _, c := range cut {
			if !containsString(budget.Shortened, c) {
				budget.Shortened = append(budget.Shortened, c)
			}
		}
		finish()
		if !ok && budget.Tokens > budget.MaxTokens {
			return noema.Errorf(noema.ETOOLARGE, "this answer is about %d tokens even shortened, above max_tokens %d: ask for max_tokens %d or more", budget.Tokens, budget.MaxTokens, budget.Tokens).WithParam("max_tokens")
		}
	}
	return nil
}

func anyKept(kept []int) bool {
	for _, k := range kept {
		if k > 0 {
			return true
		}
	}
	return false
}

// list is the section of a whole list of items, sl, of which a prefix is kept.
func list[T any](name string, sl *[]T, beyond bool) section {
	all := *sl
	return section{
		name: name, n: len(all), beyond: beyond,
		keep:  func(k int) { *sl = all[:k] },
		first: func() any { return &(*sl)[0] },
	}
}
