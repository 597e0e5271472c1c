package benchdata

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// WriteVault writes a vault into dir whose concepts are labels: notes of
// perNote list items, each a [[label]] link. It is the fixture of the
// end-to-end find_concepts and find_similar_concepts benchmarks.
func WriteVault(dir string, labels []string, perNote int) error {
	if perNote <= 0 {
		perNote = 100
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("create vault: %w", err)
	}
	for i := 0; i < len(labels); i += perNote {
		var sb strings.Builder
		for _, l := range labels[i:min(i+perNote, len(labels))] {
			fmt.Fprintf(&sb, "- [[%s]]\n", l)
		}
		name := filepath.Join(dir, fmt.Sprintf("n%06d.md", i))
		if err := os.WriteFile(name, []byte(sb.String()), 0o644); err != nil {
			return fmt.Errorf("write %s: %w", name, err)
		}
	}
	return nil
}
