package notes_test

import "github.com/noema-mem/noema/internal/cputime"

// cpuTime is the CPU time (user + system) this process has used, so that
// benchmarks can report it next to wall time; 0 where it cannot be measured.
var cpuTime = cputime.Process
