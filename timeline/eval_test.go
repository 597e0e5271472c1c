package timeline_test

import (
	"context"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/noema-mem/noema"
	"github.com/noema-mem/noema/app"
	"github.com/noema-mem/noema/internal/noematest"
	"github.com/noema-mem/noema/recall"
	"github.com/noema-mem/noema/search"
)

// The fact-update eval (docs/time.md, "The eval"): a seeded vault of facts
// that change — a preference stated and changed twice, a plan replaced, a
// fact that expires and is stated anew — among distractor notes, asked
// later in other words. It is written twice: with the supersedes,
// valid_from and valid_until properties, and without them (the vault the
// code before supersession saw). The current fact must rank first without
// as_of, and the first version first as of the time it was written.

var evalSeed = flag.Uint64("time.seed", 1, "seed of the fact-update eval's vault")

// evalNow is the eval's "now"; every note is written before it.
var evalNow = time.Date(2026, 9, 1, 12, 0, 0, 0, time.UTC)

// Case kinds.
const (
	kindPreference = "preference changed twice"
	kindPlan       = "plan replaced"
	kindExpired    = "fact expired, restated"
)

var kinds = []string{kindPreference, kindPlan, kindExpired}

// evalNote is one generated note.
type evalNote struct {
	file, title, body string
	created           time.Time
	// supersedes names the note it replaces by title; validFrom and
	// validUntil are its bounds ("" for none). The vault without
	// supersession leaves them out.
	supersedes            string
	validFrom, validUntil string
	// read: the note was read at "now" (an agent looked the old fact up
	// recently), which refreshes its decay.
	read bool
}

// evalCase is one fact that changes: its versions, oldest first, and the
// question asked about it.
type evalCase struct {
	kind     string
	versions []evalNote
	question string
	// concept is the concept every version links, for build_context.
	concept string
}

var (
	people = []string{"Dana", "Ravi", "Mei", "Tomás", "Aisha", "Lukas", "Noor", "Kenji", "Sofia", "Obi",
		"Ingrid", "Mateo", "Priya", "Yusuf", "Elena", "Hugo", "Zanele", "Farid", "Lena", "Caio"}
	projects = []string{"Atlas", "Beacon", "Comet", "Delta", "Ember", "Falcon", "Garnet", "Harbor", "Iris", "Juniper",
		"Kestrel", "Lumen", "Meridian", "Nimbus", "Orchid", "Pioneer", "Quartz", "Ridge", "Summit", "Tundra"}
	offices = []string{"Lisbon", "Oslo", "Nairobi", "Osaka", "Quito", "Tallinn", "Porto", "Dakar", "Hanoi", "Perth",
		"Graz", "Cork", "Malmo", "Leeds", "Turin", "Ghent", "Split", "Bergen", "Lyon", "Basel"}
)

// preferences: what a person prefers, three values over time, and the
// question asked later in other words.
var preferences = []struct {
	concept, topic string
	values         [3]string
	question       string
}{
	{"Coffee", "coffee", [3]string{"black coffee without sugar", "a flat white with oat milk", "a decaf cappuccino"}, "what coffee should I order for %s"},
	{"Editor", "editor", [3]string{"Vim with a tiny config", "VS Code with the Go extension", "Zed in vim mode"}, "which code editor is %s using these days"},
	{"Meetings", "meetings", [3]string{"mornings before ten", "right after lunch", "Thursday afternoons only"}, "when is a good slot to book meetings with %s"},
	{"Desk", "desk", [3]string{"a standing desk by the window", "a quiet corner desk", "hot-desking near the kitchen"}, "where does %s like their desk"},
	{"Reviews", "reviews", [3]string{"small pull requests reviewed the same day", "one long review on Fridays", "pair reviews over a call"}, "how does %s want code reviews done"},
	{"Travel", "travel", [3]string{"trains over flights", "early flights, carry-on only", "no travel, remote only"}, "how does %s prefer to travel for work"},
	{"Lunch", "lunch", [3]string{"vegetarian lunch", "vegan lunch", "gluten-free vegan lunch"}, "what lunch should we order for %s"},
	{"Notifications", "notifications", [3]string{"email only", "chat messages, no email", "a daily digest, nothing else"}, "how should we send notifications to %s"},
	{"Keyboard", "keyboard", [3]string{"a split ergonomic keyboard", "a laptop keyboard, nothing external", "a mechanical keyboard with brown switches"}, "what keyboard should IT get for %s"},
	{"Music", "music", [3]string{"no music while focusing", "lo-fi playlists", "film soundtracks"}, "what music does %s put on to focus"},
	{"Language", "language", [3]string{"Python for scripts", "Go for everything", "Rust for new services"}, "which programming language does %s pick for new tools"},
	{"Standup", "standup", [3]string{"a written async standup", "a ten-minute video standup", "no standup, a weekly summary"}, "how does %s want to run the standup"},
	{"Tea", "tea", [3]string{"green tea, no sugar", "chai with honey", "rooibos in the evening"}, "what tea does %s drink"},
	{"Feedback", "feedback", [3]string{"feedback in writing", "feedback face to face", "feedback in the weekly one-on-one"}, "how does %s like to get feedback"},
	{"Pairing", "pairing", [3]string{"pairing every morning", "pairing only on hard bugs", "no pairing, async comments"}, "does %s want pairing sessions"},
	{"Hours", "hours", [3]string{"nine to five", "ten to six", "four long days, Fridays off"}, "what hours does %s work"},
}

// generate returns the eval's cases and distractor notes for a seed.
func generate(seed uint64) ([]evalCase, []evalNote) {
	r := rand.New(rand.NewPCG(seed, 0x71e))
	day := func(n float64) time.Time {
		return evalNow.Add(-time.Duration(n * float64(24*time.Hour))).Truncate(time.Minute)
	}
	var cases []evalCase
	topics := r.Perm(len(preferences)) // each topic is one person's
	for i, who := range people[:len(preferences)] {
		// A preference stated, changed, and changed again.
		p := preferences[topics[i]]
		// Asked a few days after the last change; the changes weeks apart.
		asked, gap1, gap2 := 1+r.Float64()*9, 3+r.Float64()*40, 3+r.Float64()*40
		t1, t2, t3 := day(asked+gap2+gap1), day(asked+gap2), day(asked)
		title := fmt.Sprintf("%s %s preference", who, p.topic)
		v1 := evalNote{title: title, created: t1,
			body: fmt.Sprintf("Asked %s what %s to go for: %s. %s prefers %s, so for %s %s choose %s. [[%s]] [[%s]]",
				who, p.topic, p.values[0], who, p.values[0], p.topic, p.topic, p.values[0], who, p.concept)}
		v2 := evalNote{title: title + " (changed)", created: t2, supersedes: v1.title,
			body: fmt.Sprintf("Changed: %s now wants %s. [[%s]] [[%s]]", who, p.values[1], who, p.concept)}
		v3 := evalNote{title: title + " (current)", created: t3, supersedes: v2.title,
			body: fmt.Sprintf("Latest from %s: %s from now on. [[%s]] [[%s]]", who, p.values[2], who, p.concept)}
		// Half the time the first version was looked up recently.
		v1.read = r.IntN(2) == 0
		cases = append(cases, evalCase{kind: kindPreference, versions: []evalNote{v1, v2, v3},
			question: fmt.Sprintf(p.question, who), concept: who})

		// A plan replaced: the new one holds from its own date.
		proj := projects[i]
		t2 = day(1 + r.Float64()*9)
		t1 = t2.Add(-time.Duration((3 + r.Float64()*40) * float64(24*time.Hour))).Truncate(time.Minute)
		launch1 := t1.AddDate(0, 1, 0).Format("January 2")
		launch2 := t1.AddDate(0, 2, 3).Format("January 2")
		w1 := evalNote{title: proj + " launch plan", created: t1, read: r.IntN(2) == 0,
			body: fmt.Sprintf("The %s launch plan: the %s launch is on %s, with a launch webinar and a press release. Launch owner: %s. [[%s]]",
				proj, proj, launch1, who, proj)}
		w2 := evalNote{title: proj + " revised plan", created: t2, supersedes: w1.title, validFrom: t2.Format(time.DateOnly),
			body: fmt.Sprintf("Revised: %s ships %s instead; a blog post replaces the webinar. [[%s]]", proj, launch2, proj)}
		cases = append(cases, evalCase{kind: kindPlan, versions: []evalNote{w1, w2},
			question: fmt.Sprintf("when does %s go live", proj), concept: proj})

		// A fact that held until a date, then stated anew (no supersedes).
		office := offices[i]
		t2 = day(1 + r.Float64()*9)
		until := t2.AddDate(0, 0, -1-r.IntN(5))
		t1 = until.AddDate(0, 0, -5-r.IntN(40))
		code1, code2 := 1000+r.IntN(9000), 1000+r.IntN(9000)
		x1 := evalNote{title: office + " office door code", created: t1, validUntil: until.Format(time.DateOnly), read: r.IntN(2) == 0,
			body: fmt.Sprintf("The %s office door code is %d; the door code of the %s office changes monthly. [[%s office]]", office, code1, office, office)}
		x2 := evalNote{title: office + " office access", created: t2,
			body: fmt.Sprintf("New door code for the %s office: %d. [[%s office]]", office, code2, office)}
		cases = append(cases, evalCase{kind: kindExpired, versions: []evalNote{x1, x2},
			question: fmt.Sprintf("what is the door code of the %s office", office), concept: office + " office"})
	}
	// Distractors: notes sharing the cases' words and concepts that are
	// about something else.
	var distractors []evalNote
	for i := range 120 {
		who := people[r.IntN(len(people))]
		p := preferences[r.IntN(len(preferences))]
		proj := projects[r.IntN(len(projects))]
		office := offices[r.IntN(len(offices))]
		var body string
		switch i % 4 {
		case 0:
			body = fmt.Sprintf("%s wrote a guide on %s for the team wiki; it covers %s basics and links the %s retrospective. [[%s]] [[%s]]", who, p.topic, p.topic, proj, who, p.concept)
		case 1:
			body = fmt.Sprintf("The %s office hosted the %s planning day; %s ran the session and took notes on the launch risks. [[%s office]] [[%s]]", office, proj, who, office, proj)
		case 2:
			body = fmt.Sprintf("Budget review for %s: the %s costs were over by ten percent; %s will follow up. [[%s]]", proj, p.topic, who, proj)
		default:
			body = fmt.Sprintf("Reminder for %s: renew the badge at the %s office reception before the end of the month. [[%s]]", who, office, who)
		}
		distractors = append(distractors, evalNote{title: fmt.Sprintf("Note %03d", i), created: day(1 + r.Float64()*150), body: body})
	}
	return cases, distractors
}

// write puts a note into the vault at root; with supersession its
// properties are written.
func (n *evalNote) write(tb testing.TB, root string, withTime bool) {
	tb.Helper()
	n.file = n.title + ".md"
	var fm strings.Builder
	ts := n.created.Format(time.RFC3339)
	fmt.Fprintf(&fm, "---\ntitle: %s\ncreated: %s\nmodified: %s\n", n.title, ts, ts)
	if withTime {
		if n.supersedes != "" {
			fmt.Fprintf(&fm, "supersedes: \"[[%s]]\"\n", n.supersedes)
		}
		if n.validFrom != "" {
			fmt.Fprintf(&fm, "valid_from: %s\n", n.validFrom)
		}
		if n.validUntil != "" {
			fmt.Fprintf(&fm, "valid_until: %s\n", n.validUntil)
		}
	}
	fm.WriteString("---\n")
	if err := os.WriteFile(filepath.Join(root, n.file), []byte(fm.String()+n.body+"\n"), 0o644); err != nil {
		tb.Fatal(err)
	}
}

// evalVault writes the cases and distractors into a fresh vault, syncs it
// and records the reads.
func evalVault(tb testing.TB, cases []evalCase, distractors []evalNote, withTime bool) *app.App {
	tb.Helper()
	ctx := context.Background()
	a := noematest.OpenApp(tb, "", app.Options{})
	clock := func() time.Time { return evalNow }
	a.DB.Now, a.Notes.Now, a.Search.Now, a.Recall.Now = clock, clock, clock, clock
	if err := os.MkdirAll(a.Vault.Root, 0o755); err != nil {
		tb.Fatal(err)
	}
	for i := range cases {
		for j := range cases[i].versions {
			cases[i].versions[j].write(tb, a.Vault.Root, withTime)
		}
	}
	for i := range distractors {
		distractors[i].write(tb, a.Vault.Root, withTime)
	}
	noematest.Sync(tb, a)
	for _, c := range cases {
		for _, v := range c.versions {
			if v.read {
				a.DB.Notes().LogAccess(ctx, v.file)
			}
		}
	}
	if err := a.DB.FlushAccesses(ctx); err != nil {
		tb.Fatal(err)
	}
	return a
}

// tally counts one check's passes per case kind.
type tally map[string][2]int

func (t tally) add(kind string, ok bool) {
	c := t[kind]
	c[1]++
	if ok {
		c[0]++
	}
	t[kind] = c
}

func (t tally) rate(kind string) float64 {
	c := t[kind]
	if c[1] == 0 {
		return 0
	}
	return float64(c[0]) / float64(c[1])
}

// evalRun is what one vault answers.
type evalRun struct {
	currentFirst, firstAsOf, contextOrder tally
}

// top returns the path of the first hit (or "").
func top(res *search.Result) string {
	if len(res.Hits) == 0 {
		return ""
	}
	return strings.TrimPrefix(res.Hits[0].URI, noema.URIScheme) + ".md"
}

// measure asks every case's question of a: without as_of (the current
// version must be first), as of the first version's time (it must be
// first; only with supersession, which as_of belongs to: the vault without
// it is asked without as_of, as the old code would answer), and
// build_context around the case's concept (the current version must be
// listed above every earlier one).
func measure(tb testing.TB, a *app.App, cases []evalCase, asOf bool) evalRun {
	tb.Helper()
	ctx := context.Background()
	run := evalRun{tally{}, tally{}, tally{}}
	for _, c := range cases {
		cur, first := c.versions[len(c.versions)-1], c.versions[0]
		res, err := a.Search.Search(ctx, search.Input{Query: c.question, Limit: 10})
		if err != nil {
			tb.Fatal(err)
		}
		run.currentFirst.add(c.kind, top(res) == cur.file)
		in := search.Input{Query: c.question, Limit: 10}
		if asOf {
			in.AsOf = first.created.Add(time.Hour).Format(time.RFC3339)
		}
		if res, err = a.Search.Search(ctx, in); err != nil {
			tb.Fatal(err)
		}
		run.firstAsOf.add(c.kind, top(res) == first.file)
		ctxRes, err := a.Recall.BuildContext(ctx, recall.Input{Concept: c.concept, Depth: 0, MaxEntities: 200})
		if err != nil {
			tb.Fatal(err)
		}
		at := func(n evalNote) int {
			return slices.IndexFunc(ctxRes.Notes, func(x recall.Note) bool { return x.URI == noema.NoteURI(strings.TrimSuffix(n.file, ".md")) })
		}
		ok := at(cur) >= 0
		for _, v := range c.versions[:len(c.versions)-1] {
			ok = ok && at(v) > at(cur)
		}
		run.contextOrder.add(c.kind, ok)
	}
	return run
}

// TestFactUpdateEval runs the eval on both vaults, prints its table and
// holds the thresholds: with supersession, the current fact first in at
// least 95 % of each kind's cases and the first version first as of its
// time in at least 95 %; build_context lists the current version above
// the earlier ones in every case. The vault without supersession (what
// the code before it answered) must fall short of the first threshold in
// at least one kind, or the eval would not tell them apart.
func TestFactUpdateEval(t *testing.T) {
	cases, distractors := generate(*evalSeed)
	with := measure(t, evalVault(t, cases, distractors, true), cases, true)
	without := measure(t, evalVault(t, cases, distractors, false), cases, false)

	var b strings.Builder
	fmt.Fprintf(&b, "fact-update eval, seed %d: %d cases, %d distractor notes (go test ./timeline -run FactUpdateEval -v)\n", *evalSeed, len(cases), len(distractors))
	fmt.Fprintf(&b, "%-24s %5s | %-22s | %-22s | %-22s\n", "", "", "current first (top-1)", "first version first", "context: current above")
	fmt.Fprintf(&b, "%-24s %5s | %10s %11s | %10s %11s | %10s %11s\n", "kind", "cases", "without", "with", "without", "with as_of", "without", "with")
	for _, k := range kinds {
		fmt.Fprintf(&b, "%-24s %5d | %10.2f %11.2f | %10.2f %11.2f | %10.2f %11.2f\n", k, with.currentFirst[k][1],
			without.currentFirst.rate(k), with.currentFirst.rate(k), without.firstAsOf.rate(k), with.firstAsOf.rate(k),
			without.contextOrder.rate(k), with.contextOrder.rate(k))
	}
	t.Log("\n" + b.String())

	failsWithout := false
	for _, k := range kinds {
		if r := with.currentFirst.rate(k); r < 0.95 {
			t.Errorf("%s: the current fact is first in %.2f of the cases with supersession, want ≥ 0.95", k, r)
		}
		if r := with.firstAsOf.rate(k); r < 0.95 {
			t.Errorf("%s: the first version is first as of its time in %.2f of the cases, want ≥ 0.95", k, r)
		}
		if r := with.contextOrder.rate(k); r < 1 {
			t.Errorf("%s: build_context lists the current version above the earlier ones in %.2f of the cases, want 1", k, r)
		}
		if without.currentFirst.rate(k) < 0.95 {
			failsWithout = true
		}
	}
	if !failsWithout {
		t.Errorf("without supersession the current fact is first in ≥ 0.95 of every kind: the eval does not tell the two apart")
	}
}
