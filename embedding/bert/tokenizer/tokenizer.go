// Package tokenizer is the BERT WordPiece tokenizer as a Hugging Face
// tokenizer.json describes it (BertNormalizer, BertPreTokenizer, WordPiece,
// a template post-processor adding [CLS] and [SEP]).
//
// Its output is checked to be identical, id for id, to the reference
// implementation of @huggingface/transformers (the JavaScript port of
// Hugging Face tokenizers) on the real all-MiniLM-L6-v2 tokenizer.json, and
// it follows that implementation where it differs from the Rust one:
//
//   - clean text drops code points of category Cc, Cf, Co and Cs (except
//     tab, newline and carriage return), NUL and U+FFFD, and turns the
//     characters of JavaScript's \s into a space;
//   - CJK ideographs are surrounded by spaces only in the Basic
//     Multilingual Plane (JavaScript walks UTF-16 code units);
//   - lowercasing is Unicode's full, context-sensitive lowercase (final
//     sigma, İ), then accents are stripped: NFD and every Mn removed;
//   - words are runs of characters that are neither white space nor
//     punctuation (Unicode P and ASCII symbols); each punctuation character
//     is a word of its own; a word longer than max_input_chars_per_word code
//     points is [UNK], and so is one WordPiece cannot cover.
//
// Added tokens ([CLS], [MASK]…) written in the text are recognised before
// normalisation, as both implementations do.
package tokenizer

import (
	"encoding/json"
	"fmt"
	"os"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"

	"github.com/noema-mem/noema/internal/ascii"
)

// Tokenizer turns text into token ids. It is safe for concurrent use.
type Tokenizer struct {
	vocab   map[string]int32
	unk     int32
	unkTok  string
	prefix  string
	maxWord int

	lowercase, stripAccents, cleanText, chinese bool

	added   []addedToken // sorted longest first
	addedID map[string]int32

	pre, post []int32 // ids the template puts before and after the sequence
}

type addedToken struct {
	content string
	id      int32
}

type fileJSON struct {
	AddedTokens []struct {
		ID         int32  `json:"id"`
		Content    string `json:"content"`
		Normalized bool   `json:"normalized"`
		Lstrip     bool   `json:"lstrip"`
		Rstrip     bool   `json:"rstrip"`
	} `json:"added_tokens"`
	Normalizer *struct {
		Type               string `json:"type"`
		CleanText          *bool  `json:"clean_text"`
		HandleChineseChars *bool  `json:"handle_chinese_chars"`
		StripAccents       *bool  `json:"strip_accents"`
		Lowercase          *bool  `json:"lowercase"`
	} `json:"normalizer"`
	PreTokenizer *struct {
		Type string `json:"type"`
	} `json:"pre_tokenizer"`
	PostProcessor *struct {
		Type   string `json:"type"`
		Single []struct {
			SpecialToken *struct {
				ID string `json:"id"`
			} `json:"SpecialToken"`
			Sequence *struct {
				ID string `json:"id"`
			} `json:"Sequence"`
		} `json:"single"`
		SpecialTokens map[string]struct {
			IDs []int32 `json:"ids"`
		} `json:"special_tokens"`
		// BertProcessing
		Sep []any `json:"sep"`
		Cls []any `json:"cls"`
	} `json:"post_processor"`
	Model struct {
		Type                    string           `json:"type"`
		UnkToken                string           `json:"unk_token"`
		ContinuingSubwordPrefix *string          `json:"continuing_subword_prefix"`
		MaxInputCharsPerWord    int              `json:"max_input_chars_per_word"`
		Vocab                   map[string]int32 `json:"vocab"`
	} `json:"model"`
}

// Load reads a tokenizer.json file.
func Load(path string) (*Tokenizer, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	t, err := Parse(b)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return t, nil
}

// Parse reads the contents of a tokenizer.json file. Only the BERT
// WordPiece pipeline is supported; anything else is an error.
func Parse(data []byte) (*Tokenizer, error) {
	var f fileJSON
	if err := json.Unmarshal(data, &f); err != nil {
		return nil, fmt.Errorf("tokenizer.json: %w", err)
	}
	if f.Model.Type != "WordPiece" {
		return nil, fmt.Errorf("tokenizer.json: model type %q is not supported (want WordPiece)", f.Model.Type)
	}
	if len(f.Model.Vocab) == 0 {
		return nil, fmt.Errorf("tokenizer.json: empty vocabulary")
	}
	t := &Tokenizer{
		vocab:   f.Model.Vocab,
		prefix:  "##",
		maxWord: 100,
		addedID: map[string]int32{},
	}
	if f.Model.ContinuingSubwordPrefix != nil {
		t.prefix = *f.Model.ContinuingSubwordPrefix
	}
	if f.Model.MaxInputCharsPerWord > 0 {
		t.maxWord = f.Model.MaxInputCharsPerWord
	}
	unk, ok := t.vocab[f.Model.UnkToken]
	if !ok {
		return nil, fmt.Errorf("tokenizer.json: unknown token %q is not in the vocabulary", f.Model.UnkToken)
	}
	t.unk, t.unkTok = unk, f.Model.UnkToken
	for _, a := range f.AddedTokens {
		if a.Normalized || a.Lstrip || a.Rstrip {
			return nil, fmt.Errorf("tokenizer.json: added token %q: normalized, lstrip and rstrip are not supported", a.Content)
		}
		if a.Content == "" {
			continue
		}
		t.added = append(t.added, addedToken{a.Content, a.ID})
		t.addedID[a.Content] = a.ID
		t.vocab[a.Content] = a.ID
	}
	sort.SliceStable(t.added, func(i, j int) bool { return len(t.added[i].content) > len(t.added[j].content) })

	if n := f.Normalizer; n != nil {
		if n.Type != "BertNormalizer" {
			return nil, fmt.Errorf("tokenizer.json: normalizer %q is not supported (want BertNormalizer)", n.Type)
		}
		t.cleanText = n.CleanText == nil || *n.CleanText
		t.chinese = n.HandleChineseChars == nil || *n.HandleChineseChars
		t.lowercase = n.Lowercase == nil || *n.Lowercase
		if n.StripAccents == nil {
			t.stripAccents = t.lowercase
		} else {
			t.stripAccents = *n.StripAccents
		}
	}
	if p := f.PreTokenizer; p == nil || p.Type != "BertPreTokenizer" {
		typ := "none"
		if p != nil {
			typ = p.Type
		}
		return nil, fmt.Errorf("tokenizer.json: pre-tokenizer %q is not supported (want BertPreTokenizer)", typ)
	}
	if err := t.parsePost(&f); err != nil {
		return nil, err
	}
	return t, nil
}

func (t *Tokenizer) parsePost(f *fileJSON) error {
	p := f.PostProcessor
	if p == nil {
		return nil
	}
	switch p.Type {
	case "TemplateProcessing":
		seen := false
		for _, item := range p.Single {
			switch {
			case item.Sequence != nil:
				seen = true
			case item.SpecialToken != nil:
				st, ok := p.SpecialTokens[item.SpecialToken.ID]
				if !ok {
					return fmt.Errorf("tokenizer.json: template names unknown special token %q", item.SpecialToken.ID)
				}
				if seen {
					t.post = append(t.post, st.IDs...)
				} else {
					t.pre = append(t.pre, st.IDs...)
				}
			}
		}
	case "BertProcessing":
		id := func(v []any) (int32, error) {
			if len(v) != 2 {
				return 0, fmt.Errorf("tokenizer.json: BertProcessing token %v", v)
			}
			n, ok := v[1].(float64)
			if !ok {
				return 0, fmt.Errorf("tokenizer.json: BertProcessing token %v", v)
			}
			return int32(n), nil
		}
		cls, err := id(p.Cls)
		if err != nil {
			return err
		}
		sep, err := id(p.Sep)
		if err != nil {
			return err
		}
		t.pre, t.post = []int32{cls}, []int32{sep}
	default:
		return fmt.Errorf("tokenizer.json: post-processor %q is not supported", p.Type)
	}
	return nil
}

// VocabSize returns the number of tokens in the vocabulary.
func (t *Tokenizer) VocabSize() int { return len(t.vocab) }

// ID returns the id of a token and whether the vocabulary has it.
func (t *Tokenizer) ID(token string) (int32, bool) {
	id, ok := t.vocab[token]
	return id, ok
}

// Encode returns the ids of text with the template's special tokens
// ([CLS] … [SEP]), untruncated.
func (t *Tokenizer) Encode(text string) []int32 {
	return t.EncodeMax(text, 0)
}

// EncodeMax is Encode truncated to at most maxLen ids, special tokens
// included (the sequence loses its tail); maxLen <= 0 means no limit.
func (t *Tokenizer) EncodeMax(text string, maxLen int) []int32 {
	ids := make([]int32, 0, len(text)/3+len(t.pre)+len(t.post)+1)
	ids = append(ids, t.pre...)
	ids = t.appendTokens(ids, text)
	if maxLen > 0 && len(ids)+len(t.post) > maxLen {
		keep := maxLen - len(t.post)
		if keep < len(t.pre) {
			keep = len(t.pre)
		}
		ids = ids[:keep]
	}
	return append(ids, t.post...)
}

// Tokens returns the WordPiece tokens of text, without special tokens.
func (t *Tokenizer) Tokens(text string) []string {
	var out []string
	t.eachSection(text, func(s string, added bool) {
		if added {
			out = append(out, s)
			return
		}
		norm := t.normalize(s)
		if _, ok := t.addedID[norm]; ok {
			out = append(out, norm)
			return
		}
		for _, w := range preTokenize(norm) {
			out = t.wordPiece(out, w)
		}
	})
	return out
}

func (t *Tokenizer) appendTokens(ids []int32, text string) []int32 {
	t.eachSection(text, func(s string, added bool) {
		if added {
			ids = append(ids, t.addedID[s])
			return
		}
		norm := t.normalize(s)
		// As in transformers.js: a section whose normalised text is exactly
		// an added token is that token ("[C\u200bLS]" without lowercase).
		if id, ok := t.addedID[norm]; ok {
			ids = append(ids, id)
			return
		}
		var pieces []string
		for _, w := range preTokenize(norm) {
			pieces = t.wordPiece(pieces[:0], w)
			for _, p := range pieces {
				ids = append(ids, t.vocab[p])
			}
		}
	})
	return ids
}

// eachSection splits text at added tokens, longest match first at each
// position, left to right.
func (t *Tokenizer) eachSection(text string, fn func(s string, added bool)) {
	if len(t.added) == 0 {
		fn(text, false)
		return
	}
	start := 0
	for i := 0; i < len(text); {
		matched := ""
		if text[i] == t.added[0].content[0] || t.anyStartsWith(text[i]) {
			for _, a := range t.added {
				if strings.HasPrefix(text[i:], a.content) {
					matched = a.content
					break
				}
			}
		}
		if matched == "" {
			i++
			continue
		}
		if i > start {
			fn(text[start:i], false)
		}
		fn(matched, true)
		i += len(matched)
		start = i
	}
	if start < len(text) {
		fn(text[start:], false)
	}
}

func (t *Tokenizer) anyStartsWith(b byte) bool {
	for _, a := range t.added {
		if a.content[0] == b {
			return true
		}
	}
	return false
}

func (t *Tokenizer) normalize(s string) string {
	if t.cleanText || t.chinese {
		var b strings.Builder
		b.Grow(len(s) + 8)
		for _, r := range s {
			if t.cleanText {
				if r == 0 || r == utf8.RuneError || isControl(r) {
					continue
				}
				if isJSSpace(r) {
					b.WriteByte(' ')
					continue
				}
			}
			if t.chinese && isChinese(r) {
				b.WriteByte(' ')
				b.WriteRune(r)
				b.WriteByte(' ')
				continue
			}
			b.WriteRune(r)
		}
		s = b.String()
	}
	if t.lowercase {
		s = lowerString(s)
	}
	if t.stripAccents {
		s = stripAccents(s)
	}
	return s
}

func lowerString(s string) string {
	if ascii.Is(s) {
		return strings.ToLower(s)
	}
	return fullLower(s)
}

// fullLower is Unicode's full lowercase mapping without language
// tailoring, as JavaScript's toLowerCase applies it: the simple mappings,
// İ (U+0130) to i and a combining dot above, and capital sigma to final
// sigma (ς) at the end of a word. (golang.org/x/text/cases loses the final
// sigma context after some characters, so it is not used.)
func fullLower(s string) string {
	var b strings.Builder
	b.Grow(len(s) + 8)
	for i, r := range s {
		switch r {
		case 0x130:
			b.WriteString("i\u0307")
		case 0x3A3:
			if finalSigma(s, i) {
				b.WriteRune(0x3C2)
			} else {
				b.WriteRune(0x3C3)
			}
		default:
			b.WriteRune(unicode.ToLower(r))
		}
	}
	return b.String()
}

// finalSigma reports whether the capital sigma at byte i of s is preceded
// by a cased letter and not followed by one, case-ignorable characters
// skipped (Unicode's Final_Sigma condition).
func finalSigma(s string, i int) bool {
	before := false
	for j := i; j > 0; {
		r, size := utf8.DecodeLastRuneInString(s[:j])
		j -= size
		if caseIgnorable(r) {
			continue
		}
		before = cased(r)
		break
	}
	if !before {
		return false
	}
	for j := i + 2; j < len(s); { // Σ is two bytes
		r, size := utf8.DecodeRuneInString(s[j:])
		j += size
		if caseIgnorable(r) {
			continue
		}
		return !cased(r)
	}
	return true
}

func cased(r rune) bool {
	return unicode.In(r, unicode.Lu, unicode.Ll, unicode.Lt, unicode.Other_Lowercase, unicode.Other_Uppercase)
}

func caseIgnorable(r rune) bool {
	switch r {
	case 0x27, 0x2E, 0x3A, 0xB7, 0x387, 0x55F, 0x5F4, 0x2018, 0x2019, 0x2024, 0x2027, 0xFE13, 0xFE52, 0xFE55, 0xFF07, 0xFF0E, 0xFF1A:
		return true
	}
	return unicode.In(r, unicode.Mn, unicode.Me, unicode.Cf, unicode.Lm, unicode.Sk)
}

func stripAccents(s string) string {
	if ascii.Is(s) {
		return s
	}
	s = norm.NFD.String(s)
	var b strings.Builder
	b.Grow(len(s))
	for _, r := range s {
		if !unicode.Is(unicode.Mn, r) {
			b.WriteRune(r)
		}
	}
	return b.String()
}

// isControl is the JavaScript BertNormalizer's test: Cc, Cf, Co or Cs, but
// not tab, newline or carriage return.
func isControl(r rune) bool {
	switch r {
	case '\t', '\n', '\r':
		return false
	}
	return unicode.In(r, unicode.Cc, unicode.Cf, unicode.Co, unicode.Cs)
}

// isJSSpace reports whether r matches JavaScript's \s.
func isJSSpace(r rune) bool {
	switch r {
	case '\t', '\n', '\v', '\f', '\r', ' ', 0xA0, 0x1680, 0x2028, 0x2029, 0x202F, 0x205F, 0x3000, 0xFEFF:
		return true
	}
	return r >= 0x2000 && r <= 0x200A
}

// isChinese is the CJK test of BertNormalizer limited to the Basic
// Multilingual Plane, as the JavaScript implementation applies it.
func isChinese(r rune) bool {
	return (r >= 0x4E00 && r <= 0x9FFF) || (r >= 0x3400 && r <= 0x4DBF) || (r >= 0xF900 && r <= 0xFAFF)
}

func isPunct(r rune) bool {
	if r < utf8.RuneSelf {
		return (r >= 0x21 && r <= 0x2F) || (r >= 0x3A && r <= 0x40) || (r >= 0x5B && r <= 0x60) || (r >= 0x7B && r <= 0x7E)
	}
	return unicode.IsPunct(r)
}

// preTokenize splits normalised text into words: runs of characters that
// are neither white space nor punctuation, and single punctuation
// characters.
func preTokenize(s string) []string {
	var words []string
	start := -1
	for i, r := range s {
		switch {
		case isJSSpace(r):
			if start >= 0 {
				words = append(words, s[start:i])
				start = -1
			}
		case isPunct(r):
			if start >= 0 {
				words = append(words, s[start:i])
				start = -1
			}
			words = append(words, s[i:i+utf8.RuneLen(r)])
		default:
			if start < 0 {
				start = i
			}
		}
	}
	if start >= 0 {
		words = append(words, s[start:])
	}
	return words
}

// wordPiece appends the pieces of word to out: greedy longest match from
// the left, continuation pieces with the prefix; [UNK] for the whole word
// when it is too long or cannot be covered.
func (t *Tokenizer) wordPiece(out []string, word string) []string {
	n := utf8.RuneCountInString(word)
	unk := t.unkTok
	if n > t.maxWord {
		return append(out, unk)
	}
	if _, ok := t.vocab[word]; ok {
		return append(out, word)
	}
	mark := len(out)
	var buf []byte
	start := 0
	for start < len(word) {
		end := len(word)
		found := ""
		for end > start {
			var cand string
			if start > 0 {
				buf = append(buf[:0], t.prefix...)
				buf = append(buf, word[start:end]...)
				if _, ok := t.vocab[string(buf)]; ok {
					cand = string(buf)
				}
			} else if _, ok := t.vocab[word[start:end]]; ok {
				cand = word[start:end]
			}
			if cand != "" {
				found = cand
				break
			}
			// step back one code point
			_, size := utf8.DecodeLastRuneInString(word[start:end])
			end -= size
		}
		if found == "" {
			return append(out[:mark], unk)
		}
		out = append(out, found)
		start = end
	}
	return out
}
