package corpus

import (
	"fmt"
	"path"
	"slices"
	"strings"
	"time"
	"unicode"

	"github.com/noema-mem/noema/internal/ascii"
)

// notePlan is everything about a note that must be decided globally (unique
// titles) or before its body is written.
type notePlan struct {
	path, title string
	aliases     []string
	tags        []string
	created     time.Time
	modified    time.Time

	frontMatter bool
	fmTitle     bool
	fmCreated   bool
	fmModified  bool
	fmCustom    bool
	tagsFlow    bool
	dateOnly    bool
	fakes       int // number of code elements holding fake links
}

// planNotes draws titles, folders, dates and front-matter shape for every
// note, in order, from the plan stream.
func planNotes(opts Options, voc *vocabulary, folders []string) []notePlan {
	r := newRNG(opts.Seed, streamPlan, 0)
	// used holds every key a title or alias may not take: the concepts'
	// keys (so no note becomes a concept page by accident) and the keys of
	// titles and aliases already given out.
	used := make(map[string]bool, len(voc.keys)+2*opts.Notes)
	for k := range voc.keys {
		used[k] = true
	}
	claim := func(s string) string {
		base := s
		for n := 2; used[approxKey(s)]; n++ {
			s = fmt.Sprintf("%s %d", base, n)
		}
		used[approxKey(s)] = true
		return s
	}
	// The root gets the most notes, each further folder a little less.
	weights := make([]float64, len(folders))
	for i := range weights {
		weights[i] = 1 / (1 + 0.3*float64(i))
	}
	base := BaseTime()
	plans := make([]notePlan, opts.Notes)
	for i := range plans {
		p := &plans[i]
		folder := folders[r.weighted(weights)]
		p.created = base.Add(time.Duration(r.Intn(730*24*60)) * time.Minute)
		p.modified = p.created
		if r.chance(0.6) {
			p.modified = p.created.Add(time.Duration(r.Intn(120*24*60)) * time.Minute)
		}
		p.frontMatter = r.chance(opts.FrontMatterRate)
		if p.frontMatter {
			p.fmTitle = r.chance(0.7)
			p.fmCreated = r.chance(0.8)
			p.fmModified = r.chance(0.6)
			p.fmCustom = r.chance(0.5)
			p.tagsFlow = r.chance(0.5)
			p.dateOnly = r.chance(0.2)
			if p.dateOnly {
				p.created = p.created.Truncate(24 * time.Hour)
				p.modified = p.modified.Truncate(24 * time.Hour)
			}
		}
		p.title = claim(title(r, voc, folder, p.created))
		p.path = path.Join(folder, p.title+".md")
		if p.frontMatter {
			if r.chance(0.8) {
				p.tags = drawTags(r)
			}
			if r.chance(0.3) {
				p.aliases = drawAliases(r, p.title, claim, used)
			}
		}
		if r.chance(opts.FakeLinkRate) {
			p.fakes = r.between(1, 3)
		}
	}
	return plans
}

// title draws a note title of at least four words (concept labels have at
// most three), or a Japanese one checked against the vocabulary by the caller.
func title(r *rng, voc *vocabulary, folder string, created time.Time) string {
	if strings.HasPrefix(folder, "journal/") {
		return created.Format("2006-01-02") + " daily log"
	}
	label := func() string { return voc.labels[voc.sample(r)] }
	switch r.weighted([]float64{0.4, 0.2, 0.15, 0.1, 0.1, 0.05}) {
	case 0:
		words := make([]string, r.between(4, 6))
		for i := range words {
			words[i] = r.pick(proseWords)
		}
		words[0] = capitalize(words[0])
		return strings.Join(words, " ")
	case 1:
		return "Notes on " + label() + " and " + label()
	case 2:
		return capitalize(label()) + " design review notes"
	case 3:
		return "Meeting with " + r.pick([]string{"Ana", "Kenji", "Zoë", "Björn", "Priya", "Chloé"}) + " about " + label()
	case 4:
		return "Reading list for " + label() + " week " + fmt.Sprint(r.between(1, 52))
	default:
		return r.pick([]string{"勉強メモ", "読書ノート", "考えたこと", "会議メモ"}) + " " + label() + " について"
	}
}

func drawTags(r *rng) []string {
	n := r.between(1, 3)
	tags := make([]string, 0, n)
	for len(tags) < n {
		t := r.pick(tagWords)
		if !slices.Contains(tags, t) {
			tags = append(tags, t)
		}
	}
	return tags
}

// drawAliases returns one or two aliases of title whose keys are free.
func drawAliases(r *rng, title string, claim func(string) string, used map[string]bool) []string {
	var out []string
	if initials := initialsOf(title); len([]rune(initials)) >= 2 && !used[approxKey(initials)] && r.chance(0.5) {
		out = append(out, claim(initials))
	}
	if len(out) == 0 || r.chance(0.5) {
		out = append(out, claim(title+" "+r.pick([]string{"draft", "summary", "notes", "old"})))
	}
	return out
}

// initialsOf returns the upper-cased first letters of title's words, or ""
// when title is not ASCII.
func initialsOf(title string) string {
	if !ascii.Is(title) {
		return ""
	}
	var b strings.Builder
	for _, w := range strings.Fields(title) {
		if c := rune(w[0]); unicode.IsLetter(c) {
			b.WriteRune(unicode.ToUpper(c))
		}
	}
	return b.String()
}
