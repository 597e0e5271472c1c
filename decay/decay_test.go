package decay_test

import (
	"math"
	"strings"
	"testing"
	"time"

	"github.com/noema-mem/noema/decay"
)

var now = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

// daysAgo returns now minus d fractional days.
func daysAgo(d float64) time.Time {
	return now.Add(-time.Duration(d * 24 * float64(time.Hour)))
}

func TestWeight(t *testing.T) {
	exp := decay.DefaultConfig()
	pow := decay.DefaultConfig()
	pow.Func = decay.Power
	zeroFunc := decay.DefaultConfig()
	zeroFunc.Func = ""
	off := decay.DefaultConfig()
	off.Disabled = true

	scenarios := []struct {
		Name string
		Cfg  decay.Config
		Ref  time.Time
		Want float64
	}{
		{"exp/just now", exp, now, 1},
		{"exp/inside grace", exp, daysAgo(13.5), 1},
		{"exp/exactly grace", exp, daysAgo(14), 1},
		{"exp/one half-life after grace", exp, daysAgo(44), 0.5},
		{"exp/two half-lives after grace", exp, daysAgo(74), 0.25},
		{"exp/half a half-life", exp, daysAgo(29), math.Sqrt2 / 2},
		{"exp/one hour past grace", exp, daysAgo(14 + 1.0/24), math.Exp2(-1.0 / 24 / 30)},
		{"exp/far past", exp, daysAgo(14 + 30*20), math.Exp2(-20)},
		{"exp/future ref", exp, now.Add(72 * time.Hour), 1},
		{"exp/zero ref", exp, time.Time{}, 1},
		{"empty func means exponential", zeroFunc, daysAgo(44), 0.5},
		{"power/inside grace", pow, daysAgo(10), 1},
		{"power/exactly grace", pow, daysAgo(14), 1},
		{"power/3 days past grace", pow, daysAgo(17), 0.5},
		{"power/8 days past grace", pow, daysAgo(22), 1 / 3.0},
		{"power/99 days past grace", pow, daysAgo(113), 0.1},
		{"power/half a day past grace", pow, daysAgo(14.5), 1 / math.Sqrt(1.5)},
		{"power/future ref", pow, now.Add(time.Hour), 1},
		{"disabled/far past", off, daysAgo(10000), 1},
	}
	for _, sc := range scenarios {
		t.Run(sc.Name, func(t *testing.T) {
			got := sc.Cfg.Weight("notes/a.md", sc.Ref, now)
			if !approx(got, sc.Want) {
				t.Fatalf("Weight = %.15g, want %.15g", got, sc.Want)
			}
		})
	}
}

func TestWeightMonotonic(t *testing.T) {
	for _, f := range []decay.Func{decay.Exponential, decay.Power} {
		cfg := decay.DefaultConfig()
		cfg.Func = f
		prev := 1.0
		for d := 0.0; d < 400; d += 0.25 {
			w := cfg.Weight("a.md", daysAgo(d), now)
			if w > prev || w <= 0 || w > 1 {
				t.Fatalf("%s: weight at %v days = %v (previous %v): not in (0,1] or not non-increasing", f, d, w, prev)
			}
			prev = w
		}
	}
}

func TestFolderGrace(t *testing.T) {
	cfg := decay.DefaultConfig()
	cfg.FolderGrace = map[string]float64{
		"journal/":       3,
		"journal/daily/": 1,
		"archive/":       0,
		"projects/":      60,
	}
	scenarios := []struct {
		Name      string
		Path      string
		WantGrace float64
	}{
		{"no prefix uses the default", "notes/x.md", 14},
		{"root file uses the default", "x.md", 14},
		{"folder prefix", "journal/2026-02-01.md", 3},
		{"longest prefix wins", "journal/daily/2026-02-01.md", 1},
		{"prefix must match from the start", "old/journal/x.md", 14},
		{"case-sensitive", "Journal/x.md", 14},
		{"zero grace", "archive/x.md", 0},
		{"longer than default", "projects/p.md", 60},
		{"folder without slash does not match the slash prefix", "journal", 14},
	}
	for _, sc := range scenarios {
		t.Run(sc.Name, func(t *testing.T) {
			if got := cfg.Grace(sc.Path); got != sc.WantGrace {
				t.Fatalf("Grace(%q) = %v, want %v", sc.Path, got, sc.WantGrace)
			}
		})
	}

	// The weight uses the folder's grace: 4 days old is fresh by default but
	// one day past a 3-day journal grace.
	ref := daysAgo(4)
	if w := cfg.Weight("notes/x.md", ref, now); w != 1 {
		t.Errorf("default-grace weight = %v, want 1", w)
	}
	if w, want := cfg.Weight("journal/x.md", ref, now), math.Exp2(-1.0/30); !approx(w, want) {
		t.Errorf("journal weight = %v, want %v", w, want)
	}
	if w := cfg.Weight("projects/p.md", daysAgo(59), now); w != 1 {
		t.Errorf("projects weight = %v, want 1", w)
	}
}

func TestReference(t *testing.T) {
	t1 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	t2 := t1.Add(time.Hour)
	scenarios := []struct {
		Name               string
		Modified, Accessed time.Time
		Want               time.Time
	}{
		{"accessed later", t1, t2, t2},
		{"modified later", t2, t1, t2},
		{"tie", t1, t1, t1},
		{"tie across zones", t1, t1.In(time.FixedZone("X", 3600)), t1},
		{"never accessed", t1, time.Time{}, t1},
		{"no modified time", time.Time{}, t2, t2},
		{"both zero", time.Time{}, time.Time{}, time.Time{}},
	}
	for _, sc := range scenarios {
		t.Run(sc.Name, func(t *testing.T) {
			if got := decay.Reference(sc.Modified, sc.Accessed); !got.Equal(sc.Want) {
				t.Fatalf("Reference = %v, want %v", got, sc.Want)
			}
		})
	}
}

func TestValidate(t *testing.T) {
	mod := func(f func(*decay.Config)) decay.Config {
		c := decay.DefaultConfig()
		f(&c)
		return c
	}
	scenarios := []struct {
		Name    string
		Cfg     decay.Config
		WantErr []string // substrings; nil means valid
	}{
		{"default", decay.DefaultConfig(), nil},
		{"power", mod(func(c *decay.Config) { c.Func = decay.Power }), nil},
		{"empty func", mod(func(c *decay.Config) { c.Func = "" }), nil},
		{"zero grace", mod(func(c *decay.Config) { c.GraceDays = 0 }), nil},
		{"folder grace", mod(func(c *decay.Config) { c.FolderGrace = map[string]float64{"journal/": 3} }), nil},
		{"unknown func", mod(func(c *decay.Config) { c.Func = "linear" }), []string{`"linear" is unknown`}},
		{"negative grace", mod(func(c *decay.Config) { c.GraceDays = -1 }), []string{"grace days", "-1"}},
		{"NaN grace", mod(func(c *decay.Config) { c.GraceDays = math.NaN() }), []string{"grace days"}},
		{"zero half-life", mod(func(c *decay.Config) { c.HalfLifeDays = 0 }), []string{"half-life"}},
		{"infinite half-life", mod(func(c *decay.Config) { c.HalfLifeDays = math.Inf(1) }), []string{"half-life"}},
		{"empty prefix", mod(func(c *decay.Config) { c.FolderGrace = map[string]float64{"": 3} }), []string{"empty folder prefix"}},
		{"absolute prefix", mod(func(c *decay.Config) { c.FolderGrace = map[string]float64{"/journal/": 3} }), []string{`"/journal/"`, "vault-relative"}},
		{"negative folder grace", mod(func(c *decay.Config) { c.FolderGrace = map[string]float64{"journal/": -2} }), []string{`"journal/"`, "-2"}},
		{"every problem reported", mod(func(c *decay.Config) { c.Func = "x"; c.HalfLifeDays = -1 }), []string{`"x"`, "half-life"}},
	}
	for _, sc := range scenarios {
		t.Run(sc.Name, func(t *testing.T) {
			err := sc.Cfg.Validate()
			if sc.WantErr == nil {
				if err != nil {
					t.Fatalf("Validate = %v, want nil", err)
				}
				return
			}
			if err == nil {
				t.Fatalf("Validate = nil, want an error containing %q", sc.WantErr)
			}
			for _, w := range sc.WantErr {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("Validate = %q, want it to contain %q", err, w)
				}
			}
		})
	}
}

func approx(a, b float64) bool { return math.Abs(a-b) <= 1e-12 }
