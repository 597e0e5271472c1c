// Package cputime reads the CPU time the process has used, so that
// benchmarks can report it next to wall time, which other load distorts.
package cputime
