package cli

import (
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"golang.org/x/term"
)

// progress draws a bar on stderr when it is a terminal and --json is off.
type progress struct {
	w       io.Writer
	label   string
	enabled bool
	drawn   bool
	last    time.Time
}

func (c *CLI) progressBar(label string) *progress {
	p := &progress{w: c.Stderr, label: label}
	if f, ok := c.Stderr.(*os.File); ok && !c.json && term.IsTerminal(int(f.Fd())) {
		p.enabled = true
	}
	return p
}

func (p *progress) update(done, total int) {
	if !p.enabled || total == 0 {
		return
	}
	if done < total && time.Since(p.last) < 80*time.Millisecond {
		return
	}
	p.last = time.Now()
	const width = 30
	fill := width * done / total
	fmt.Fprintf(p.w, "\r%s [%s%s] %d/%d", p.label, strings.Repeat("=", fill), strings.Repeat(" ", width-fill), done, total)
	p.drawn = true
}

func (p *progress) finish() {
	if p.drawn {
		fmt.Fprint(p.w, "\r\033[K")
	}
}
