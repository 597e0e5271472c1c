package decay_test

import (
	"fmt"
	"time"

	"github.com/noema-mem/noema/decay"
)

func ExampleConfig_Weight() {
	cfg := decay.DefaultConfig() // 14 days of grace, 30-day half-life
	cfg.FolderGrace = map[string]float64{"journal/": 3}
	now := time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)
	modified := now.AddDate(0, 0, -44)
	accessed := now.AddDate(0, 0, -20) // read_note 20 days ago
	ref := decay.Reference(modified, accessed)

	fmt.Printf("notes/a.md   %.3f\n", cfg.Weight("notes/a.md", ref, now))
	fmt.Printf("journal/a.md %.3f\n", cfg.Weight("journal/a.md", ref, now))
	cfg.Func = decay.Power
	fmt.Printf("power law    %.3f\n", cfg.Weight("notes/a.md", ref, now))
	// Output:
	// notes/a.md   0.871
	// journal/a.md 0.675
	// power law    0.378
}
