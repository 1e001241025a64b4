package experiment

import (
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	_ "modernc.org/sqlite"

	"github.com/gridsched/gridsched/internal/buildinfo" // the pure-Go SQLite driver, registered as "sqlite"
)

// Store is the crash-safe result store: an SQLite file in WAL mode with
// synchronous=NORMAL, one transaction per batch of finished runs, the run
// key as primary key. Killing the process at any moment loses at most the
// runs in flight; a finished run is never lost or stored twice. (In WAL
// mode, NORMAL writes each commit to the log without waiting for the disk;
// the log is synced at checkpoints. A crash of the process loses nothing
// committed; a crash of the machine or a power cut can lose the runs
// committed since the last checkpoint (one follows a commit when the last
// is CheckpointEvery old), which a --resume runs again; the store stays
// consistent. FULL synced every commit: on the runner's path, that cost
// about 15 % of a sweep of small runs; issue 19.)
//
// The store is the file store.db and, while it is open or after a crash,
// store.db-wal (committed runs not yet copied into store.db) and
// store.db-shm: copy or move all three together. The write-ahead log is
// checkpointed into store.db after group commits (at most once per
// CheckpointEvery) and at Close, so after a clean exit store.db alone
// holds every run.
type Store struct {
	db   *sql.DB
	Path string
	Hash string
	Spec string // canonical JSON of the spec
	// Label is the label the spec was run with ("" for none). The
	// canonical JSON leaves it out (it is not part of the spec file, and
	// the hash must not depend on it), so the store keeps it in its meta
	// table and StoredSpec puts it back.
	Label string
	// Format is the store's format: StoreFormat, or 1 for a store written
	// before code identities and input contents were recorded (read by
	// report and merge, never resumed).
	Format int
	// Code is the code identity the runs inserted now record
	// (buildinfo.Identity); Codes every identity that wrote runs into the
	// store, the first the one that made it (several only with
	// --allow-code-change).
	Code  string
	Codes []string
	// Version is the gridsched (buildinfo.Build) that made the store.
	Version string
	// Inputs are the files the experiment reads, with their content
	// hashes when the store was made.
	Inputs []Input

	lastCheckpoint time.Time
	commitMu       sync.Mutex // held by a commit and by Freeze
	frozen         bool
	writer         bool // opened by OpenStore: checkpointed at Close

	insert *sql.Stmt      // the run insert, prepared once (InsertBatch)
	failed int            // failures: 0 not read yet, -1 none, 1 some (mayHaveFailures)
	params map[int]string // a configuration's params JSON, by index
}

// CheckpointEvery is the least time between two checkpoints of the
// write-ahead log after group commits.
var CheckpointEvery = 2 * time.Second

// The store's marks in the SQLite header: PRAGMA application_id (which
// application's file it is) and PRAGMA user_version (the format). A file
// without them is not opened for writing: a store.db of another
// application is refused untouched.
const (
	ApplicationID = 0x47534348 // "GSCH"
	StoreFormat   = 2
)

// damaged explains an SQLite error that means the file is not a sound
// store, naming the file and the ways out; other errors pass unchanged.
func damaged(path string, err error) error {
	if err == nil {
		return nil
	}
	msg := err.Error()
	if strings.Contains(msg, "malformed") || strings.Contains(msg, "not a database") || strings.Contains(msg, "SQLITE_CORRUPT") || strings.Contains(msg, "SQLITE_NOTADB") {
		return fmt.Errorf("%s: the result store is damaged (%v). Keep it aside; rerun the experiment into a fresh folder (--out NEW, the runs are deterministic), or try 'gridsched merge --out NEW %s' to copy what is still readable; its companion files %s-wal and %s-shm belong with it", path, err, path, path, path)
	}
	return fmt.Errorf("%s: %w", path, err)
}

const schema = `
PRAGMA application_id = 1196639048;
PRAGMA user_version = 2;
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS runs (
	run_key      TEXT PRIMARY KEY,
	config_index INTEGER NOT NULL,
	config_id    TEXT NOT NULL,
	params       TEXT NOT NULL,
	replication  INTEGER NOT NULL,
	seed         TEXT NOT NULL,
	metrics      TEXT NOT NULL,
	code         TEXT NOT NULL
);` + failuresSchema

// failuresSchema holds the runs that failed for a reason of their own
// (system.ErrRunFailed): not in runs, retried by a resumed sweep. A
// store made before it is given the table when a sweep reopens it.
const failuresSchema = `
CREATE TABLE IF NOT EXISTS failures (
	run_key      TEXT PRIMARY KEY,
	config_index INTEGER NOT NULL,
	config_id    TEXT NOT NULL,
	replication  INTEGER NOT NULL,
	seed         TEXT NOT NULL,
	error        TEXT NOT NULL
);`

// dsn is the SQLite URI of path with the query q: characters that the
// URI would read otherwise (?, #, %) are escaped.
func dsn(path, q string) string {
	esc := strings.NewReplacer("%", "%25", "?", "%3f", "#", "%23").Replace(path)
	return "file:" + esc + "?" + q
}

// openDB opens a store this process writes: a new one (create: the
// format marks and tables are written) or one identify recognised (given
// the failures table if it has none).
func openDB(path string, create bool) (*sql.DB, error) {
	db, err := sql.Open("sqlite", dsn(path, "_pragma=journal_mode(WAL)&_pragma=synchronous(NORMAL)&_pragma=busy_timeout(10000)"))
	if err != nil {
		return nil, err
	}
	db.SetMaxOpenConns(1)
	q := failuresSchema
	if create {
		q = schema
	}
	if _, err := db.Exec(q); err != nil {
		db.Close()
		return nil, damaged(path, err)
	}
	return db, nil
}

// openRO opens a store for reading only: nothing is written into it, and
// it works on a read-only mount (there, where SQLite cannot make the
// shared-memory file of the write-ahead log, the file is opened as
// immutable: nothing can write to it there either).
func openRO(path string) (*sql.DB, error) {
	var last error
	for _, q := range []string{"mode=ro&_pragma=busy_timeout(10000)", "mode=ro&immutable=1"} {
		db, err := sql.Open("sqlite", dsn(path, q))
		if err != nil {
			return nil, err
		}
		db.SetMaxOpenConns(1)
		var n int
		if err = db.QueryRow(`SELECT count(*) FROM sqlite_master`).Scan(&n); err == nil {
			return db, nil
		}
		db.Close()
		last = err
		if m := err.Error(); !strings.Contains(m, "unable to open") && !strings.Contains(m, "readonly") && !strings.Contains(m, "read-only") {
			break
		}
	}
	return nil, damaged(path, last)
}

// ErrStoreExists is returned when a store exists and resume was not asked.
var ErrStoreExists = errors.New("result store exists")

// ErrForeignStore is returned for a file that is not a gridsched result
// store: it is refused untouched.
var ErrForeignStore = errors.New("not a gridsched result store")

// ErrChanged is returned when a store cannot go on with this experiment
// as it is now: its inputs' contents or the code changed.
var ErrChanged = errors.New("refusing to mix results")

// identify reads, without writing anything, which store path is: its
// format (StoreFormat, 1 for a store of an older gridsched), or
// ErrForeignStore.
func identify(path string) (int, error) {
	db, err := openRO(path)
	if err != nil {
		return 0, err
	}
	defer db.Close()
	var app, format int
	if err := db.QueryRow(`PRAGMA application_id`).Scan(&app); err != nil {
		return 0, damaged(path, err)
	}
	db.QueryRow(`PRAGMA user_version`).Scan(&format)
	if app == ApplicationID {
		if format > StoreFormat {
			return 0, fmt.Errorf("%s: %w: made by a newer gridsched (store format %d, this one reads up to %d)", path, ErrForeignStore, format, StoreFormat)
		}
		return format, nil
	}
	var hash string
	if app == 0 && db.QueryRow(`SELECT value FROM meta WHERE key = 'spec_hash'`).Scan(&hash) == nil {
		var n int
		if db.QueryRow(`SELECT count(*) FROM runs`).Scan(&n) == nil {
			return 1, nil
		}
	}
	var tables []string
	if rows, err := db.Query(`SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name`); err == nil {
		for rows.Next() {
			var t string
			rows.Scan(&t)
			tables = append(tables, t)
		}
		rows.Close()
	}
	what := "an SQLite file with no tables"
	if len(tables) > 0 {
		what = "an SQLite file with tables " + strings.Join(tables, ", ")
	}
	return 0, fmt.Errorf("%s: %w (%s, application id %#x): gridsched writes only into stores it made; choose another --out, or move the file away", path, ErrForeignStore, what, app)
}

// peek reads a recognised store's number of runs and its stopped mark
// (MarkStopped), without writing.
func peek(path string) (runs int, stopped string, err error) {
	db, err := openRO(path)
	if err != nil {
		return 0, "", err
	}
	defer db.Close()
	if err := db.QueryRow(`SELECT count(*) FROM runs`).Scan(&runs); err != nil {
		return 0, "", damaged(path, err)
	}
	db.QueryRow(`SELECT value FROM meta WHERE key = 'stopped'`).Scan(&stopped)
	return runs, stopped, nil
}

// removeStore removes a store's files (store.db and its -wal and -shm).
func removeStore(path string) error {
	for _, ext := range []string{"", "-wal", "-shm"} {
		if err := os.Remove(path + ext); err != nil && !errors.Is(err, os.ErrNotExist) {
			return err
		}
	}
	return nil
}

// moveAside renames a store's files to the first free NAME-stopped-N.db
// beside it and returns that path.
func moveAside(path string) (string, error) {
	base := strings.TrimSuffix(path, ".db")
	for n := 1; ; n++ {
		to := fmt.Sprintf("%s-stopped-%d.db", base, n)
		if _, err := os.Stat(to); err == nil {
			continue
		}
		for _, ext := range []string{"", "-wal", "-shm"} {
			if err := os.Rename(path+ext, to+ext); err != nil && !errors.Is(err, os.ErrNotExist) {
				return "", err
			}
		}
		return to, nil
	}
}

// StoreOptions say how OpenStoreWith treats an existing store.
type StoreOptions struct {
	// Resume continues an existing store of the same experiment (same
	// spec, same input contents, same code).
	Resume bool
	// AllowCodeChange lets a resume continue a store made by other code:
	// each run records the code identity that made it.
	AllowCodeChange bool
	// Inputs are the experiment's inputs with their hashes (nil: the
	// spec's Inputs are read).
	Inputs []Input
	// Notice, if set, is told what was done to an existing store (an
	// empty one replaced, a stopped one moved aside, a code change
	// allowed).
	Notice func(string)
}

// OpenStore opens (creating) the store for spec at path. An existing
// store is only reopened with resume, and only if it holds the same
// experiment (OpenStoreWith).
func OpenStore(path string, s *Spec, resume bool) (*Store, error) {
	return OpenStoreWith(path, s, StoreOptions{Resume: resume})
}

// OpenStoreWith opens (creating) the store for spec at path. A store is
// recognised by its application id and format (ErrForeignStore: refused
// untouched). An existing store that holds no finished run is replaced;
// one whose sweep stopped on an error of its spec or inputs (MarkStopped)
// is moved aside to store-stopped-N.db by a run without resume; else it
// is reopened only with Resume, and only if it holds the same experiment:
// the same spec (hash), the same contents of every input (ErrChanged
// names each file that changed) and the same code identity (or
// AllowCodeChange).
func OpenStoreWith(path string, s *Spec, o StoreOptions) (*Store, error) {
	notice := o.Notice
	if notice == nil {
		notice = func(string) {}
	}
	ins := o.Inputs
	if ins == nil {
		var err error
		if ins, err = s.Inputs(); err != nil {
			return nil, err
		}
	}
	st := &Store{Path: path, Hash: s.Hash(), Spec: s.Canonical(), Label: s.Label, writer: true,
		Format: StoreFormat, Code: buildinfo.Identity(), Version: buildinfo.Build(), Inputs: ins}
	fi, statErr := os.Stat(path)
	exists := statErr == nil && fi.Size() > 0
	if statErr == nil && fi.IsDir() {
		return nil, fmt.Errorf("%s: %w: it is a folder", path, ErrForeignStore)
	}
	if exists {
		format, err := identify(path)
		if err != nil {
			return nil, err
		}
		runs, stopped, err := peek(path)
		if err != nil {
			return nil, err
		}
		switch {
		case runs == 0:
			if err := removeStore(path); err != nil {
				return nil, err
			}
			notice(fmt.Sprintf("%s held no finished run (an earlier start stopped before its first run finished): replaced", path))
			exists = false
		case stopped != "" && !o.Resume:
			to, err := moveAside(path)
			if err != nil {
				return nil, err
			}
			notice(fmt.Sprintf("%s stopped on an error (%s); its %d finished runs are kept in %s, and the experiment starts afresh", path, stopped, runs, to))
			exists = false
		case !o.Resume:
			return nil, fmt.Errorf("%s: %w with %d finished runs (use --resume to continue it, or choose another --out)", path, ErrStoreExists, runs)
		case format < StoreFormat:
			return nil, fmt.Errorf("%s: %w: it was written by an older gridsched (store format %d, which recorded neither the code nor the contents of the inputs behind its %d runs), so it cannot be continued: 'gridsched report' and 'merge' still read it; run the experiment into a new folder (--out NEW)", path, ErrChanged, format, runs)
		}
	}
	if !exists {
		db, err := openDB(path, true)
		if err != nil {
			return nil, err
		}
		st.db = db
		st.Codes = []string{st.Code}
		insJSON, _ := json.Marshal(ins)
		codes, _ := json.Marshal(st.Codes)
		tx, err := db.Begin()
		if err != nil {
			db.Close()
			return nil, err
		}
		for _, kv := range [][2]string{{"spec_hash", st.Hash}, {"spec", st.Spec}, {"name", s.Name}, {"label", s.Label},
			{"code_identities", string(codes)}, {"version", st.Version}, {"inputs", string(insJSON)}} {
			if _, err := tx.Exec(`INSERT INTO meta (key, value) VALUES (?, ?)`, kv[0], kv[1]); err != nil {
				tx.Rollback()
				db.Close()
				return nil, err
			}
		}
		if err := tx.Commit(); err != nil {
			db.Close()
			return nil, err
		}
		return st, nil
	}
	db, err := openDB(path, false)
	if err != nil {
		return nil, err
	}
	st.db = db
	old, err := readMeta(db, path)
	if err != nil {
		db.Close()
		return nil, err
	}
	fail := func(err error) (*Store, error) { db.Close(); return nil, err }
	runs, _ := st.Count()
	if old.Hash != st.Hash {
		hint := "choose another --out, or remove it"
		if old.stopped != "" {
			hint = "it stopped on an error: run without --resume to move it aside and start afresh, or choose another --out"
		}
		return fail(fmt.Errorf("%s: %w: it holds another experiment (spec hash %s, this spec %s): %s", path, ErrChanged, old.Hash, st.Hash, hint))
	}
	if ch := inputChanges(old.Inputs, ins); len(ch) > 0 {
		return fail(fmt.Errorf("%s: %w: the inputs changed since its %d runs were made:\n  - %s\nResuming would mix results of two versions of the inputs. Either run the experiment into a new folder (--out NEW), or restore the inputs as they were (the SHA-256 above)", path, ErrChanged, runs, strings.Join(ch, "\n  - ")))
	}
	st.Inputs, st.Version, st.Codes = old.Inputs, old.Version, old.Codes
	if !slices.Contains(old.Codes, st.Code) {
		if !o.AllowCodeChange {
			return fail(fmt.Errorf("%s: %w: its %d runs were made by other code (code identity %s; %s) than this gridsched (code identity %s): resuming would mix results of two versions of the simulator. Either run the experiment into a new folder (--out NEW) to redo every run with this code, or continue here with --allow-code-change: each run then records the code identity that made it, and the exports and the report count the runs of each", path, ErrChanged, runs, strings.Join(old.Codes, ", "), old.Version, st.Code))
		}
		st.Codes = append(st.Codes, st.Code)
		codes, _ := json.Marshal(st.Codes)
		if _, err := db.Exec(`INSERT OR REPLACE INTO meta (key, value) VALUES ('code_identities', ?)`, string(codes)); err != nil {
			return fail(damaged(path, err))
		}
		notice(fmt.Sprintf("%s: continuing with other code (--allow-code-change): its runs were made by %s, the runs made now record %s", path, strings.Join(old.Codes, ", "), st.Code))
	}
	if old.stopped != "" {
		db.Exec(`DELETE FROM meta WHERE key = 'stopped'`) // resumed: the mark goes; a new error sets it again
	}
	return st, nil
}

// storeMeta is what a store's meta table says.
type storeMeta struct {
	Hash, Spec, Label, Version, stopped string
	Codes                               []string
	Inputs                              []Input
}

func readMeta(db *sql.DB, path string) (storeMeta, error) {
	var m storeMeta
	rows, err := db.Query(`SELECT key, value FROM meta`)
	if err != nil {
		return m, damaged(path, err)
	}
	defer rows.Close()
	for rows.Next() {
		var k, v string
		if err := rows.Scan(&k, &v); err != nil {
			return m, damaged(path, err)
		}
		switch k {
		case "spec_hash":
			m.Hash = v
		case "spec":
			m.Spec = v
		case "label":
			m.Label = v
		case "version":
			m.Version = v
		case "stopped":
			m.stopped = v
		case "code_identities":
			if err := json.Unmarshal([]byte(v), &m.Codes); err != nil {
				return m, fmt.Errorf("%s: code_identities: %w", path, err)
			}
		case "inputs":
			if err := json.Unmarshal([]byte(v), &m.Inputs); err != nil {
				return m, fmt.Errorf("%s: inputs: %w", path, err)
			}
		}
	}
	if err := rows.Err(); err != nil {
		return m, damaged(path, err)
	}
	if m.Hash == "" {
		return m, fmt.Errorf("%s: %w: its meta table has no spec_hash", path, ErrForeignStore)
	}
	return m, nil
}

// MarkStopped records in the store that its sweep stopped on an error of
// the spec or its inputs (why): a later run without --resume moves the
// store aside and starts afresh, so a plain rerun of the fixed spec is
// accepted; a resume clears the mark.
func (st *Store) MarkStopped(why string) error {
	_, err := st.db.Exec(`INSERT OR REPLACE INTO meta (key, value) VALUES ('stopped', ?)`, why)
	return damaged(st.Path, err)
}

// Count is the number of runs in the store.
func (st *Store) Count() (int, error) {
	var n int
	err := st.db.QueryRow(`SELECT count(*) FROM runs`).Scan(&n)
	return n, damaged(st.Path, err)
}

// OpenExisting opens a store for reading only (reports, exports,
// merges): nothing is written into it, and it works on a read-only
// mount. A file that is not a gridsched store is refused untouched.
func OpenExisting(path string) (*Store, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if fi.IsDir() {
		return nil, fmt.Errorf("%s: %w: it is a folder", path, ErrForeignStore)
	}
	format, err := identify(path)
	if err != nil {
		return nil, err
	}
	db, err := openRO(path)
	if err != nil {
		return nil, err
	}
	m, err := readMeta(db, path)
	if err != nil {
		db.Close()
		return nil, err
	}
	st := &Store{db: db, Path: path, Hash: m.Hash, Spec: m.Spec, Label: m.Label, Format: format, Codes: m.Codes, Version: m.Version, Inputs: m.Inputs}
	return st, nil
}

// Close checkpoints the write-ahead log into store.db (a store opened
// for writing) and closes the store.
func (st *Store) Close() error {
	if st.insert != nil {
		st.insert.Close()
	}
	var cerr error
	if st.writer {
		_, cerr = st.db.Exec(`PRAGMA wal_checkpoint(TRUNCATE)`)
	}
	if err := st.db.Close(); err != nil {
		return damaged(st.Path, err)
	}
	if cerr != nil {
		return damaged(st.Path, cerr)
	}
	return nil
}

// Row is one stored run.
type Row struct {
	Key         string
	ConfigIndex int
	ConfigID    string
	Params      map[string]string
	Rep         int
	Seed        string
	Metrics     map[string]float64
	Code        string // the code identity that made the run ("" in a store of format 1)
}

// Done returns the keys of the stored runs.
func (st *Store) Done() (map[string]bool, error) {
	rows, err := st.db.Query(`SELECT run_key FROM runs`)
	if err != nil {
		return nil, damaged(st.Path, err)
	}
	defer rows.Close()
	done := map[string]bool{}
	for rows.Next() {
		var k string
		if err := rows.Scan(&k); err != nil {
			return nil, err
		}
		done[k] = true
	}
	if err := rows.Err(); err != nil {
		return nil, damaged(st.Path, err)
	}
	return done, nil
}

// Insert commits one finished run. A run whose key is already stored is
// an error (a sweep runs only what the store lacks, and a spec cannot
// name one configuration twice): a run is never dropped silently.
func (st *Store) Insert(r Run, metrics map[string]float64) error {
	return st.InsertBatch([]Run{r}, []map[string]float64{metrics})
}

// ErrFrozen is returned by InsertBatch after Freeze: the process is
// being interrupted and what the store keeps has been reported.
var ErrFrozen = errors.New("result store frozen: the process is being interrupted")

// Freeze stops every later commit (InsertBatch then fails with
// ErrFrozen) and returns the number of runs the store keeps: a commit in
// progress finishes first, so the count is exact and stays exact until
// the process exits (the interrupt handler's note).
func (st *Store) Freeze() (int, error) {
	st.commitMu.Lock()
	defer st.commitMu.Unlock()
	st.frozen = true
	return st.Count()
}

// InsertBatch commits finished runs in one transaction (group commit: one
// fsync for all of them). Either all are stored or none.
func (st *Store) InsertBatch(runs []Run, metrics []map[string]float64) error {
	st.commitMu.Lock()
	defer st.commitMu.Unlock()
	if st.frozen {
		return ErrFrozen
	}
	if st.insert == nil {
		// Prepared once: parsing the statement for every run cost about
		// as much as executing it (issue 19, target 5).
		stmt, err := st.db.Prepare(`INSERT INTO runs (run_key, config_index, config_id, params, replication, seed, metrics, code) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`)
		if err != nil {
			return damaged(st.Path, err)
		}
		st.insert, st.params = stmt, map[int]string{}
	}
	tx, err := st.db.Begin()
	if err != nil {
		return err
	}
	defer tx.Rollback()
	ins := tx.Stmt(st.insert)
	for i, r := range runs {
		pj, ok := st.params[r.Config.Index]
		if !ok {
			params := map[string]string{}
			for _, p := range r.Config.Params {
				params[p.Key] = FormatValue(p.Value)
			}
			b, _ := json.Marshal(params)
			pj = string(b)
			st.params[r.Config.Index] = pj
		}
		mj, err := json.Marshal(metrics[i])
		if err != nil {
			return fmt.Errorf("run %s: %w", r.Key, err)
		}
		if _, err := ins.Exec(r.Key, r.Config.Index, r.Config.ID, pj, r.Rep, strconv.FormatUint(r.Seed, 10), string(mj), st.Code); err != nil {
			if strings.Contains(err.Error(), "UNIQUE") {
				return fmt.Errorf("run %s is already in %s: two runs of one configuration and replication (a bug: please report it)", r.Key, st.Path)
			}
			return fmt.Errorf("run %s: %w", r.Key, err)
		}
	}
	for _, r := range runs {
		if !st.mayHaveFailures(tx) {
			break
		}
		// A run that failed before and succeeds now is no longer failed.
		if _, err := tx.Exec(`DELETE FROM failures WHERE run_key = ?`, r.Key); err != nil {
			return fmt.Errorf("run %s: %w", r.Key, err)
		}
	}
	if err := tx.Commit(); err != nil {
		return damaged(st.Path, err)
	}
	if time.Since(st.lastCheckpoint) >= CheckpointEvery {
		// Cheap (the log holds a few batches); a busy reader only
		// makes it partial.
		st.db.Exec(`PRAGMA wal_checkpoint(PASSIVE)`)
		st.lastCheckpoint = time.Now()
	}
	return nil
}

// Failure is a run that failed for a reason of its own
// (system.ErrRunFailed): it is not in the runs, and resuming the sweep
// retries it.
type Failure struct {
	Key         string
	ConfigIndex int
	ConfigID    string
	Rep         int
	Seed        string
	Error       string
}

// RecordFailure commits a failed run with its reason (replacing an
// earlier failure of the same run).
func (st *Store) RecordFailure(r Run, reason error) error {
	st.commitMu.Lock()
	defer st.commitMu.Unlock()
	if st.frozen {
		return ErrFrozen
	}
	_, err := st.db.Exec(`INSERT OR REPLACE INTO failures (run_key, config_index, config_id, replication, seed, error) VALUES (?, ?, ?, ?, ?, ?)`,
		r.Key, r.Config.Index, r.Config.ID, r.Rep, strconv.FormatUint(r.Seed, 10), reason.Error())
	if err != nil {
		return damaged(st.Path, err)
	}
	st.failed = 1
	return nil
}

// mayHaveFailures says whether the failures table may hold a run (read
// once: the common store has none, and its inserts skip the delete).
// tx is the commit's transaction (it holds the store's one connection).
func (st *Store) mayHaveFailures(tx *sql.Tx) bool {
	if st.failed == 0 {
		st.failed = -1
		var n int
		if tx.QueryRow(`SELECT count(*) FROM failures`).Scan(&n) == nil && n > 0 {
			st.failed = 1
		}
	}
	return st.failed > 0
}

// Failures returns the failed runs ordered by configuration and
// replication.
func (st *Store) Failures() ([]Failure, error) {
	rows, err := st.db.Query(`SELECT run_key, config_index, config_id, replication, seed, error FROM failures ORDER BY config_index, replication`)
	if err != nil {
		if strings.Contains(err.Error(), "no such table") {
			return nil, nil // a store from before failures were kept
		}
		return nil, damaged(st.Path, err)
	}
	defer rows.Close()
	var out []Failure
	for rows.Next() {
		var f Failure
		if err := rows.Scan(&f.Key, &f.ConfigIndex, &f.ConfigID, &f.Rep, &f.Seed, &f.Error); err != nil {
			return nil, err
		}
		out = append(out, f)
	}
	return out, rows.Err()
}

// Rows returns every stored run ordered by configuration and replication.
func (st *Store) Rows() ([]Row, error) {
	rows, err := st.db.Query(`SELECT run_key, config_index, config_id, params, replication, seed, metrics, ` + st.codeColumn() + ` FROM runs ORDER BY config_index, replication`)
	if err != nil {
		return nil, damaged(st.Path, err)
	}
	defer rows.Close()
	var out []Row
	for rows.Next() {
		var r Row
		var pj, mj string
		if err := rows.Scan(&r.Key, &r.ConfigIndex, &r.ConfigID, &pj, &r.Rep, &r.Seed, &mj, &r.Code); err != nil {
			return nil, err
		}
		if err := json.Unmarshal([]byte(pj), &r.Params); err != nil {
			return nil, err
		}
		if err := json.Unmarshal([]byte(mj), &r.Metrics); err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	if err := rows.Err(); err != nil {
		return nil, damaged(st.Path, err)
	}
	return out, nil
}

// Digest is a fingerprint of the store's runs: "sha256:" and the first
// 16 bytes, in hex, of the SHA-256 of every run's key, metrics and code
// identity (one line each, in run-key order). Two stores with the same
// runs have the same digest, whatever order the runs were made in; the
// aggregates exported from a store record it (verdicts export, verify).
func (st *Store) Digest() (string, error) {
	rows, err := st.db.Query(`SELECT run_key, metrics, ` + st.codeColumn() + ` FROM runs ORDER BY run_key`)
	if err != nil {
		return "", damaged(st.Path, err)
	}
	defer rows.Close()
	h := sha256.New()
	for rows.Next() {
		var k, m, c string
		if err := rows.Scan(&k, &m, &c); err != nil {
			return "", err
		}
		fmt.Fprintf(h, "%s\t%s\t%s\n", k, m, c)
	}
	if err := rows.Err(); err != nil {
		return "", damaged(st.Path, err)
	}
	return "sha256:" + hex.EncodeToString(h.Sum(nil)[:16]), nil
}

// codeColumn is the runs' code column (an empty text in a store of format 1).
func (st *Store) codeColumn() string {
	if st.Format < 2 {
		return "''"
	}
	return "code"
}

// Merge copies the runs of the stores at paths into a new store at out
// (MergeWith without allowing several code identities).
func Merge(out string, paths []string) (int, error) { return MergeWith(out, paths, false) }

// MergeWith copies the runs of the stores at paths into a new store at
// out. Every store must hold the same experiment: the same spec (hash)
// and the same contents of every input; runs made by different code are
// merged only with allowCodeChange (each keeps its code identity). The
// stores are only read.
func MergeWith(out string, paths []string, allowCodeChange bool) (int, error) {
	if len(paths) == 0 {
		return 0, fmt.Errorf("merge: no stores given")
	}
	if _, err := os.Stat(out); err == nil {
		return 0, fmt.Errorf("%s: %w (merge writes a new store)", out, ErrStoreExists)
	}
	var srcs []*Store
	defer func() {
		for _, s := range srcs {
			s.Close()
		}
	}()
	var codes []string
	for _, p := range paths {
		s, err := OpenExisting(p)
		if err != nil {
			return 0, err
		}
		srcs = append(srcs, s)
		first := srcs[0]
		if s.Hash != first.Hash {
			return 0, fmt.Errorf("merge: %w: %s holds another experiment than %s (spec hash %s vs %s)", ErrChanged, p, paths[0], s.Hash, first.Hash)
		}
		if s.Format != first.Format {
			return 0, fmt.Errorf("merge: %w: %s has store format %d, %s format %d (written by different versions of gridsched)", ErrChanged, p, s.Format, paths[0], first.Format)
		}
		if ch := inputChanges(first.Inputs, s.Inputs); len(ch) > 0 {
			return 0, fmt.Errorf("merge: %w: %s read other inputs than %s:\n  - %s", ErrChanged, p, paths[0], strings.Join(ch, "\n  - "))
		}
		for _, c := range s.Codes {
			if !slices.Contains(codes, c) {
				codes = append(codes, c)
			}
		}
	}
	if len(codes) > 1 && !allowCodeChange {
		return 0, fmt.Errorf("merge: %w: the stores' runs were made by different code (code identities %s): merge them with --allow-code-change to keep each run's identity, or rerun with one version", ErrChanged, strings.Join(codes, ", "))
	}
	db, err := openDB(out, true)
	if err != nil {
		return 0, err
	}
	defer db.Close()
	tx, err := db.Begin()
	if err != nil {
		return 0, err
	}
	defer tx.Rollback()
	first := srcs[0]
	insJSON, _ := json.Marshal(first.Inputs)
	codesJSON, _ := json.Marshal(codes)
	if codes == nil {
		codesJSON = []byte("[]")
	}
	for _, kv := range [][2]string{{"spec_hash", first.Hash}, {"spec", first.Spec}, {"label", first.Label}, {"version", first.Version},
		{"code_identities", string(codesJSON)}, {"inputs", string(insJSON)}} {
		if _, err := tx.Exec(`INSERT INTO meta (key, value) VALUES (?, ?)`, kv[0], kv[1]); err != nil {
			return 0, err
		}
	}
	var name string
	first.db.QueryRow(`SELECT value FROM meta WHERE key = 'name'`).Scan(&name)
	if _, err := tx.Exec(`INSERT INTO meta (key, value) VALUES ('name', ?)`, name); err != nil {
		return 0, err
	}
	n := 0
	for _, s := range srcs {
		rows, err := s.db.Query(`SELECT run_key, config_index, config_id, params, replication, seed, metrics, ` + s.codeColumn() + ` FROM runs`)
		if err != nil {
			return 0, damaged(s.Path, err)
		}
		for rows.Next() {
			var k, cid, pj, seed, mj, code string
			var ci, rep int
			if err := rows.Scan(&k, &ci, &cid, &pj, &rep, &seed, &mj, &code); err != nil {
				rows.Close()
				return 0, damaged(s.Path, err)
			}
			res, err := tx.Exec(`INSERT OR IGNORE INTO runs (run_key, config_index, config_id, params, replication, seed, metrics, code) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`, k, ci, cid, pj, rep, seed, mj, code)
			if err != nil {
				rows.Close()
				return 0, err
			}
			if c, _ := res.RowsAffected(); c > 0 {
				n++
			}
		}
		rows.Close()
	}
	return n, tx.Commit()
}
