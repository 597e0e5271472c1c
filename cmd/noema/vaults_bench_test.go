package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// BenchmarkVaultCost measures what each vault a server serves adds: a
// `noema serve` of one vault beside one of five, each vault 200 notes,
// once every vault is indexed and has answered a search (so its index,
// names and vectors are loaded). It reports, per extra vault, the growth
// of the process's resident memory and of its goroutines.
//
//	go test -run '^$' -bench VaultCost -benchtime 1x ./cmd/noema/
func BenchmarkVaultCost(b *testing.B) {
	for range b.N {
		one := vaultServerCost(b, 1)
		five := vaultServerCost(b, 5)
		b.ReportMetric(float64(five.rssKB-one.rssKB)/4/1024, "MB-RSS/extra-vault")
		b.ReportMetric(float64(five.goroutines-one.goroutines)/4, "goroutines/extra-vault")
		b.ReportMetric(float64(one.rssKB)/1024, "MB-RSS/1-vault")
		b.ReportMetric(float64(one.goroutines), "goroutines/1-vault")
	}
}

type serverCost struct {
	rssKB      int
	goroutines int
}

// vaultServerCost starts noema serve with n vaults of 200 notes each,
// waits until each answers a search of its notes, and reads its cost.
func vaultServerCost(b *testing.B, n int) serverCost {
	b.Helper()
	root := b.TempDir()
	var args []string
	for i := range n {
		dir := filepath.Join(root, fmt.Sprintf("v%d", i))
		os.MkdirAll(dir, 0o755)
		for j := range 200 {
			text := fmt.Sprintf("Note %d of vault %d links [[Topic %d]] and [[Topic %d]]; marker%d.\n", j, i, j%40, (j*7)%40, i)
			os.WriteFile(filepath.Join(dir, fmt.Sprintf("Note %03d.md", j)), []byte(text), 0o644)
		}
		args = append(args, "--vault", fmt.Sprintf("v%d=%s", i, dir))
	}
	port, pprofPort := freePort(b), freePort(b)
	cmd := exec.Command(binary, append(args, "serve", "--addr", fmt.Sprintf("127.0.0.1:%d", port))...)
	cmd.Env = append(os.Environ(), fmt.Sprintf("NOEMA_PPROF=127.0.0.1:%d", pprofPort))
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	defer func() { cmd.Process.Signal(os.Interrupt); cmd.Wait() }()
	base := fmt.Sprintf("http://127.0.0.1:%d", port)
	deadline := time.Now().Add(2 * time.Minute)
	for {
		if resp, err := http.Get(base + "/healthz"); err == nil {
			resp.Body.Close()
			break
		}
		if time.Now().After(deadline) {
			b.Fatal("noema serve did not start")
		}
		time.Sleep(50 * time.Millisecond)
	}
	client := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "v0"}, nil)
	cs, err := client.Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: base + "/mcp", MaxRetries: -1}, nil)
	if err != nil {
		b.Fatal(err)
	}
	defer cs.Close()
	for i := range n {
		for {
			res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "search_notes",
				Arguments: map[string]any{"vault": fmt.Sprintf("v%d", i), "query": fmt.Sprintf("marker%d", i), "limit": 1}})
			if err == nil && !res.IsError && strings.Contains(fmt.Sprint(res.StructuredContent), "total:200") {
				break
			}
			if time.Now().After(deadline) {
				b.Fatalf("vault v%d not indexed: %v %v", i, err, res)
			}
			time.Sleep(100 * time.Millisecond)
		}
	}
	time.Sleep(2 * time.Second) // the background embedding and warm-ups settle
	var cost serverCost
	f, err := os.Open(fmt.Sprintf("/proc/%d/status", cmd.Process.Pid))
	if err != nil {
		b.Skipf("no /proc: %v", err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "VmRSS:"); ok {
			cost.rssKB, _ = strconv.Atoi(strings.TrimSuffix(strings.TrimSpace(v), " kB"))
		}
	}
	resp, err := http.Get(fmt.Sprintf("http://127.0.0.1:%d/debug/pprof/goroutine?debug=1", pprofPort))
	if err != nil {
		b.Fatal(err)
	}
	defer resp.Body.Close()
	first, _ := bufio.NewReader(io.LimitReader(resp.Body, 1<<10)).ReadString('\n')
	fmt.Sscanf(first, "goroutine profile: total %d", &cost.goroutines)
	if cost.rssKB == 0 || cost.goroutines == 0 {
		b.Fatalf("could not read the cost: rss %d kB, %q", cost.rssKB, first)
	}
	return cost
}
