package lease

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// ErrBusy marks ClaimOutput's refusal: another live process is writing
// a report of other work to the same path.
var ErrBusy = errors.New("lease: the report path is taken")

// ClaimOutput claims the report path out for this process, writing the
// report of the work of (an identity: the protocol's id, the suite's):
// it writes a lease beside out, <out>.lease-<host>-<pid>-<time>, and
// refuses,
// with an error wrapping ErrBusy that names the holder, when a live
// lease of another process there names other work, so two runs of
// different protocols never replace each other's report. Processes of
// the same work share the path (they share their trials and write the
// same report). The lease is renewed every ttl/4 until release, which
// removes it; stale leases of other processes are removed.
//
// Two processes of different work that claim at the same moment may
// both be refused (each sees the other's lease); neither report is then
// replaced, and either may claim again.
func ClaimOutput(out, of string, ttl time.Duration) (release func(), err error) {
	me := Mine(of)
	dir, base := filepath.Split(out)
	if dir == "" {
		dir = "."
	}
	prefix := base + ".lease-"
	mine := filepath.Join(dir, prefix+hostWord(me.Host)+"-"+strconv.Itoa(me.PID)+"-"+strconv.FormatInt(me.Since.UnixNano(), 36))
	if err := Create(mine, me); err != nil {
		return nil, fmt.Errorf("lease: claiming %s: %w", out, err)
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		os.Remove(mine)
		return nil, fmt.Errorf("lease: claiming %s: %w", out, err)
	}
	for _, e := range entries {
		path := filepath.Join(dir, e.Name())
		if !strings.HasPrefix(e.Name(), prefix) || path == mine {
			continue
		}
		if stale, err := Stale(path, ttl); err == nil && stale {
			os.Remove(path)
			continue
		}
		if l, err := Read(path); err == nil && l.Of == of {
			continue
		}
		os.Remove(mine)
		return nil, fmt.Errorf("%w: %s is being written by another ideabench (%s) running other work; give this one another --out, or wait until that one ends (remove %s if no such process runs)",
			ErrBusy, out, Holder(path), path)
	}
	stop := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		Renew(stop, ttl, func() []string { return []string{mine} })
	}()
	return func() {
		close(stop)
		<-done
		os.Remove(mine)
	}, nil
}

// hostWord is a host name as one word of a file name.
func hostWord(h string) string {
	h = strings.Map(func(r rune) rune {
		if r == '-' || r == '.' || r == '_' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' {
			return r
		}
		return '_'
	}, h)
	if h == "" {
		return "host"
	}
	return h
}
