package experiment

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// ErrLocked is returned when another process holds a run folder.
var ErrLocked = errors.New("the result store is in use by another gridsched")

// Lock is an exclusive lock on a result store (the file STORE.lock beside
// it, so the shards of one folder each have their own): two processes
// writing one store would redo each other's runs. The lock is the operating
// system's (flock), so it ends with the process, however it ends; the
// file records the holder for the message the next one gets.
type Lock struct{ f *os.File }

// LockStore takes the exclusive lock of the store at store (creating its
// folder), or says who holds it.
func LockStore(store string) (*Lock, error) {
	dir := filepath.Dir(store)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	path := store + ".lock"
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, err
	}
	if err := flock(f); err != nil {
		holder, _ := os.ReadFile(path)
		f.Close()
		h := strings.TrimSpace(string(holder))
		if h == "" {
			h = "unknown holder"
		}
		return nil, fmt.Errorf("%s: %w (%s); wait for it to finish or stop it, then use --resume", store, ErrLocked, h)
	}
	host, _ := os.Hostname()
	f.Truncate(0)
	fmt.Fprintf(f, "pid %d on %s since %s: %s\n", os.Getpid(), host, time.Now().UTC().Format(time.RFC3339), strings.Join(os.Args, " "))
	f.Sync()
	return &Lock{f: f}, nil
}

// Unlock releases the lock.
func (l *Lock) Unlock() error {
	if l == nil || l.f == nil {
		return nil
	}
	funlock(l.f)
	err := l.f.Close()
	l.f = nil
	return err
}
