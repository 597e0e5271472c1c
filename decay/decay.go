// Package decay computes recency weights: how much a note's age should
// discount its rank.
//
// A note's reference time is the latest of its modification time and its
// last explicit access (see [Reference]). With age a in fractional days and a
// grace period g, the weight is 1 while a ≤ g and, after that,
//
//	exponential (default):   w = 0.5^((a − g) / h)
//	power (ACT-R style):     w = (a − g + 1)^−0.5
//
// where h is the half-life in days. Both curves are continuous at the end of
// the grace period (w = 1 there) and strictly decreasing after it; the power
// law falls faster at first and keeps a long tail. Grace can differ per folder
// (e.g. "journal/" → 3 days; the longest matching prefix wins).
//
// Decay only reorders: callers multiply a relevance score by the weight, they
// never hide or delete anything because of it, and [Config.Disabled] turns it
// off (every weight is 1).
//
// The package is pure: it never reads the clock. "now" is always a parameter,
// so tests and callers control time.
package decay

import (
	"errors"
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"
	"time"
)

// Func names a decay curve.
type Func string

// The decay curves.
const (
	// Exponential halves the weight every half-life after the grace period.
	// It is the default; the empty Func means Exponential.
	Exponential Func = "exponential"
	// Power is the ACT-R style power law (age − grace + 1)^−0.5. It ignores
	// the half-life.
	Power Func = "power"
)

// Defaults of [DefaultConfig].
const (
	DefaultGraceDays    = 14
	DefaultHalfLifeDays = 30
)

// Config configures the decay curve. The zero value is not valid (its
// half-life is 0); start from [DefaultConfig].
type Config struct {
	// Func is the curve; "" means Exponential.
	Func Func
	// GraceDays is how long, in days, a note keeps weight 1 after its
	// reference time. It must be ≥ 0.
	GraceDays float64
	// HalfLifeDays is the exponential curve's half-life in days; it must be
	// > 0 (it is checked even when Func is Power, to catch typos early).
	HalfLifeDays float64
	// FolderGrace overrides GraceDays for vault paths that start with a
	// prefix, e.g. "journal/" → 3. Prefixes are plain, case-sensitive string
	// prefixes of the vault-relative, slash-separated path: write the
	// trailing slash to mean a folder ("journal" would also match
	// "journalism.md"). The longest matching prefix wins.
	FolderGrace map[string]float64
	// Disabled turns decay off: every weight is 1.
	Disabled bool
}

// DefaultConfig returns the default configuration: exponential decay, 14 days
// of grace, a 30-day half-life, no per-folder grace.
func DefaultConfig() Config {
	return Config{
		Func:         Exponential,
		GraceDays:    DefaultGraceDays,
		HalfLifeDays: DefaultHalfLifeDays,
	}
}

// Validate reports every problem with c, joined into one error, or nil.
func (c Config) Validate() error {
	var errs []error
	switch c.Func {
	case "", Exponential, Power:
	default:
		errs = append(errs, fmt.Errorf("decay function %q is unknown (want %q or %q)", c.Func, Exponential, Power))
	}
	if !isFinite(c.GraceDays) || c.GraceDays < 0 {
		errs = append(errs, fmt.Errorf("decay grace days must be a finite number ≥ 0, got %v", c.GraceDays))
	}
	if !isFinite(c.HalfLifeDays) || c.HalfLifeDays <= 0 {
		errs = append(errs, fmt.Errorf("decay half-life days must be a finite number > 0, got %v", c.HalfLifeDays))
	}
	for _, prefix := range sortedKeys(c.FolderGrace) {
		g := c.FolderGrace[prefix]
		switch {
		case prefix == "":
			errs = append(errs, errors.New("decay folder grace: empty folder prefix"))
		case strings.HasPrefix(prefix, "/") || strings.Contains(prefix, `\`):
			errs = append(errs, fmt.Errorf("decay folder grace %q: use a vault-relative path with forward slashes", prefix))
		}
		if !isFinite(g) || g < 0 {
			errs = append(errs, fmt.Errorf("decay folder grace %q: days must be a finite number ≥ 0, got %v", prefix, g))
		}
	}
	return errors.Join(errs...)
}

// Grace returns the grace period in days for the vault-relative path: the
// value of the longest FolderGrace prefix of path, else GraceDays.
func (c Config) Grace(path string) float64 {
	grace, best := c.GraceDays, -1
	for prefix, g := range c.FolderGrace {
		if len(prefix) > best && strings.HasPrefix(path, prefix) {
			grace, best = g, len(prefix)
		}
	}
	return grace
}

// Weight returns the decay weight in (0, 1] of the note at path whose
// reference time is ref, as seen at now. Age is measured in fractional days
// (24-hour days). The weight is 1 when decay is disabled, while the age is
// within the path's grace period, when ref is in the future, and when ref is
// the zero time (no reference time known: unknown age is not penalised).
// Far past the grace period the exponential curve may underflow to 0.
//
// Weight assumes c is valid (see [Config.Validate]).
func (c Config) Weight(path string, ref, now time.Time) float64 {
	if c.Disabled || ref.IsZero() {
		return 1
	}
	return c.WeightGrace(c.Grace(path), ref, now)
}

// WeightGrace is [Config.Weight] of a note whose grace period, in days,
// is grace (c.Grace of its path): the same arithmetic, for a caller that
// keeps notes' graces rather than their paths.
func (c Config) WeightGrace(grace float64, ref, now time.Time) float64 {
	if c.Disabled || ref.IsZero() {
		return 1
	}
	age := now.Sub(ref).Hours() / 24
	if age <= grace {
		return 1
	}
	return c.Curve(age - grace)
}

// Curve returns the weight of a note over days past its grace period
// (over > 0): the configured curve alone, with no grace or disabled check.
// Bounds of the weight (find_similar_concepts' decay bounds) take it from
// here so that they follow the same arithmetic as [Config.WeightGrace].
func (c Config) Curve(over float64) float64 {
	if c.Func == Power {
		return 1 / math.Sqrt(over+1)
	}
	return math.Exp2(-over / c.HalfLifeDays)
}

// MaxGrace returns the longest grace period, in days, of any path: the
// default grace or a folder's, whichever is longer.
func (c Config) MaxGrace() float64 {
	g := c.GraceDays
	for _, d := range c.FolderGrace {
		g = max(g, d)
	}
	return g
}

// Reference returns a note's reference time: the later of its modification
// time and its last explicit access. A zero value is ignored; both zero gives
// the zero time.
func Reference(modified, accessed time.Time) time.Time {
	// The zero time precedes every real time, so it loses any comparison.
	if accessed.After(modified) {
		return accessed
	}
	return modified
}

func isFinite(f float64) bool { return !math.IsNaN(f) && !math.IsInf(f, 0) }

func sortedKeys(m map[string]float64) []string {
	return slices.Sorted(maps.Keys(m))
}
