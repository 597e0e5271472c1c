// Package models knows the sentence encoders noema can download, where they
// live on disk, and how to fetch them: [Pull] downloads a model's files from
// the Hugging Face hub at a pinned revision, resumes partial downloads, and
// verifies each file's size and SHA-256 against the values pinned here.
package models

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/noema-mem/noema"
)

// File is one file of a model, pinned.
type File struct {
	// Path is the file's path in the repository and in the model folder.
	Path   string
	Size   int64
	SHA256 string
}

// Model is a model noema knows.
type Model struct {
	// Name is the folder name under [Root] and the model part of the
	// embedder's name.
	Name string
	// Repo and Revision locate the files on the hub (a commit, so the
	// content cannot change).
	Repo, Revision string
	// Pooling is "mean" or "cls"; MaxLength the tokens per text the model
	// was trained with.
	Pooling   string
	MaxLength int
	Dimension int
	License   string
	Files     []File
}

// Size returns the bytes to download.
func (m Model) Size() int64 {
	var n int64
	for _, f := range m.Files {
		n += f.Size
	}
	return n
}

// Default is the model used when the configuration names none.
const Default = "all-MiniLM-L6-v2"

// Known lists the models `noema model pull` can download. Pins: the files at
// the given revision, sizes and SHA-256 of the hub's copies.
var Known = []Model{
	{
		Name: "all-MiniLM-L6-v2", Repo: "sentence-transformers/all-MiniLM-L6-v2",
		Revision: "1110a243fdf4706b3f48f1d95db1a4f5529b4d41",
		Pooling:  "mean", MaxLength: 256, Dimension: 384, License: "Apache-2.0",
		Files: []File{
			{"config.json", 612, "953f9c0d463486b10a6871cc2fd59f223b2c70184f49815e7efbcab5d8908b41"},
			{"sentence_bert_config.json", 53, "fc1993fde0a95c24ec6c022539d41cf6e2f7c9721e5415d6fb6897472a9cd4b7"},
			{"tokenizer.json", 466247, "be50c3628f2bf5bb5e3a7f17b1f74611b2561a3a27eeab05e5aa30f411572037"},
			{"model.safetensors", 90868376, "53aa51172d142c89d9012cce15ae4d6cc0ca6895895114379cacb4fab128d9db"},
		},
	},
	{
		Name: "bge-small-en-v1.5", Repo: "BAAI/bge-small-en-v1.5",
		Revision: "5c38ec7c405ec4b44b94cc5a9bb96e735b38267a",
		Pooling:  "cls", MaxLength: 512, Dimension: 384, License: "MIT",
		Files: []File{
			{"config.json", 743, "094f8e891b932f2000c92cfc663bac4c62069f5d8af5b5278c4306aef3084750"},
			{"tokenizer.json", 711396, "d241a60d5e8f04cc1b2b3e9ef7a4921b27bf526d9f6050ab90f9267a1f9e5c66"},
			{"model.safetensors", 133466304, "3c9f31665447c8911517620762200d2245a2518d6e7208acc78cd9db317e21ad"},
		},
	},
}

// Lookup returns the known model with the name.
func Lookup(name string) (Model, bool) {
	for _, m := range Known {
		if strings.EqualFold(m.Name, name) {
			return m, true
		}
	}
	return Model{}, false
}

// Names returns the known models' names.
func Names() []string {
	out := make([]string, len(Known))
	for i, m := range Known {
		out[i] = m.Name
	}
	return out
}

// Root returns the folder models are kept in: $XDG_DATA_HOME/noema/models,
// else ~/.local/share/noema/models. getenv nil means os.Getenv.
func Root(getenv func(string) string) (string, error) {
	if getenv == nil {
		getenv = os.Getenv
	}
	if d := getenv("XDG_DATA_HOME"); d != "" {
		return filepath.Join(d, "noema", "models"), nil
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return "", fmt.Errorf("find home directory: %w", err)
	}
	return filepath.Join(home, ".local", "share", "noema", "models"), nil
}

// Dir returns the folder of the named model under [Root].
func Dir(name string, getenv func(string) string) (string, error) {
	root, err := Root(getenv)
	if err != nil {
		return "", err
	}
	if name == "" || name != filepath.Base(name) || name == "." || name == ".." {
		return "", noema.Errorf(noema.EINVALID, "model name %q is not a folder name", name)
	}
	return filepath.Join(root, name), nil
}

// Missing returns the model's files absent from dir or of the wrong size
// (a cheap check; [Verify] reads them).
func Missing(m Model, dir string) []string {
	var out []string
	for _, f := range m.Files {
		st, err := os.Stat(filepath.Join(dir, filepath.FromSlash(f.Path)))
		if err != nil || st.Size() != f.Size {
			out = append(out, f.Path)
		}
	}
	return out
}

// Verify checks every file's size and SHA-256.
func Verify(m Model, dir string) error {
	for _, f := range m.Files {
		sum, n, err := hashFile(filepath.Join(dir, filepath.FromSlash(f.Path)))
		if err != nil {
			return err
		}
		if n != f.Size || sum != f.SHA256 {
			return noema.Errorf(noema.EINVALID, "%s: %d bytes with SHA-256 %s, want %d bytes with %s", f.Path, n, sum, f.Size, f.SHA256)
		}
	}
	return nil
}

func hashFile(path string) (string, int64, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", 0, err
	}
	defer f.Close()
	h := sha256.New()
	n, err := io.Copy(h, f)
	if err != nil {
		return "", 0, err
	}
	return hex.EncodeToString(h.Sum(nil)), n, nil
}

// DefaultBaseURL is the hub's address.
const DefaultBaseURL = "https://huggingface.co"

// PullOptions configure [Pull].
type PullOptions struct {
	// BaseURL is the hub; "" means DefaultBaseURL. Files are fetched from
	// BASE/REPO/resolve/REVISION/PATH.
	BaseURL string
	// Client is the HTTP client; nil means one with a 30 s header timeout.
	Client *http.Client
	// Progress, when set, is called as bytes arrive with the bytes the
	// model folder holds so far and the model's total.
	Progress func(done, total int64)
	// Retries is the number of resumed attempts after a broken transfer.
	Retries int
}

// Result reports a pull.
type Result struct {
	Model      string   `json:"model"`
	Dir        string   `json:"dir"`
	Bytes      int64    `json:"bytes"`
	Downloaded int64    `json:"downloaded"`
	Files      []string `json:"files"`
	Verified   bool     `json:"verified"`
}

// Pull downloads m's files into dir, skipping files already there with the
// pinned size and SHA-256 and resuming a partial download (FILE.part) with
// an HTTP range request. A file whose checksum does not match is deleted and
// the pull fails (noema.EINVALID); an unreachable hub is noema.EUNAVAILABLE.
func Pull(ctx context.Context, m Model, dir string, o PullOptions) (*Result, error) {
	base := o.BaseURL
	if base == "" {
		base = DefaultBaseURL
	}
	base = strings.TrimRight(base, "/")
	client := o.Client
	if client == nil {
		client = &http.Client{Transport: &http.Transport{
			Proxy:                 http.ProxyFromEnvironment,
			ResponseHeaderTimeout: 30 * time.Second,
			TLSHandshakeTimeout:   15 * time.Second,
		}}
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	res := &Result{Model: m.Name, Dir: dir, Bytes: m.Size()}
	total := m.Size()
	var done int64
	report := func(extra int64) {
		if o.Progress != nil {
			o.Progress(done+extra, total)
		}
	}
	for _, f := range m.Files {
		dst := filepath.Join(dir, filepath.FromSlash(f.Path))
		if sum, n, err := hashFile(dst); err == nil && n == f.Size && sum == f.SHA256 {
			done += f.Size
			report(0)
			continue
		}
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			return nil, err
		}
		u := base + "/" + m.Repo + "/resolve/" + m.Revision + "/" + (&url.URL{Path: f.Path}).EscapedPath()
		var got int64
		var err error
		for attempt := 0; ; attempt++ {
			var n int64
			n, err = fetch(ctx, client, u, dst+".part", f, func(part int64) { report(part) })
			got += n
			if err == nil || attempt >= o.Retries || !retryable(err) || ctx.Err() != nil {
				break
			}
		}
		res.Downloaded += got
		if err != nil {
			return nil, err
		}
		if err := os.Rename(dst+".part", dst); err != nil {
			return nil, err
		}
		res.Files = append(res.Files, f.Path)
		done += f.Size
		report(0)
	}
	res.Verified = true
	return res, nil
}

type transferError struct{ err error }

func (e *transferError) Error() string { return e.err.Error() }
func (e *transferError) Unwrap() error { return e.err }

func retryable(err error) bool {
	var te *transferError
	return errors.As(err, &te)
}

// fetch brings part up to f's size (resuming from its current length),
// verifies it, and returns the bytes transferred.
func fetch(ctx context.Context, client *http.Client, u, part string, f File, progress func(int64)) (int64, error) {
	var have int64
	if st, err := os.Stat(part); err == nil {
		have = st.Size()
	}
	if have > f.Size {
		os.Remove(part)
		have = 0
	}
	var n int64
	if have < f.Size {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
		if err != nil {
			return 0, err
		}
		if have > 0 {
			req.Header.Set("Range", "bytes="+strconv.FormatInt(have, 10)+"-")
		}
		resp, err := client.Do(req)
		if err != nil {
			if ctx.Err() != nil {
				return 0, ctx.Err()
			}
			return 0, noema.Errorf(noema.EUNAVAILABLE, "download %s: %v (model pull needs network access to the hub; or copy the files into the model folder by hand)", u, err)
		}
		defer resp.Body.Close()
		flags := os.O_WRONLY | os.O_CREATE
		switch {
		case resp.StatusCode == http.StatusPartialContent && have > 0:
			if !strings.HasPrefix(resp.Header.Get("Content-Range"), "bytes "+strconv.FormatInt(have, 10)+"-") {
				return 0, noema.Errorf(noema.EUNAVAILABLE, "download %s: the server resumed at the wrong offset (Content-Range %q)", u, resp.Header.Get("Content-Range"))
			}
			flags |= os.O_APPEND
		case resp.StatusCode == http.StatusOK:
			flags |= os.O_TRUNC
			have = 0
		case resp.StatusCode == http.StatusRequestedRangeNotSatisfiable:
			os.Remove(part)
			return 0, &transferError{fmt.Errorf("download %s: range not satisfiable; starting again", u)}
		case resp.StatusCode == http.StatusNotFound:
			return 0, noema.Errorf(noema.ENOTFOUND, "download %s: the hub has no such file (404)", u)
		default:
			return 0, noema.Errorf(noema.EUNAVAILABLE, "download %s: HTTP %s", u, resp.Status)
		}
		out, err := os.OpenFile(part, flags, 0o644)
		if err != nil {
			return 0, err
		}
		buf := make([]byte, 256<<10)
		for have+n < f.Size {
			k, rerr := resp.Body.Read(buf)
			if k > 0 {
				if have+n+int64(k) > f.Size {
					k = int(f.Size - have - n)
				}
				if _, werr := out.Write(buf[:k]); werr != nil {
					out.Close()
					return n, werr
				}
				n += int64(k)
				progress(have + n)
			}
			if rerr == io.EOF {
				break
			}
			if rerr != nil {
				out.Close()
				if ctx.Err() != nil {
					return n, ctx.Err()
				}
				return n, &transferError{noema.Errorf(noema.EUNAVAILABLE, "download %s: %v after %d bytes (run the pull again to resume)", u, rerr, have+n)}
			}
		}
		if err := out.Close(); err != nil {
			return n, err
		}
		if have+n < f.Size {
			return n, &transferError{noema.Errorf(noema.EUNAVAILABLE, "download %s: connection closed after %d of %d bytes (run the pull again to resume)", u, have+n, f.Size)}
		}
	}
	sum, size, err := hashFile(part)
	if err != nil {
		return n, err
	}
	if size != f.Size || sum != f.SHA256 {
		os.Remove(part)
		return n, noema.Errorf(noema.EINVALID, "download %s: checksum mismatch: got %d bytes with SHA-256 %s, pinned %d bytes with %s; the file was deleted", u, size, sum, f.Size, f.SHA256)
	}
	return n, nil
}
