package experiment

import (
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	_ "modernc.org/sqlite" // the pure-Go SQLite driver, registered as "sqlite"
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

	lastCheckpoint time.Time
	writer         bool // opened by OpenStore: checkpointed at Close

	insert *sql.Stmt      // the run insert, prepared once (InsertBatch)
	params map[int]string // a configuration's params JSON, by index
}

// CheckpointEvery is the least time between two checkpoints of the
// write-ahead log after group commits.
var CheckpointEvery = 2 * time.Second

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
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS runs (
	run_key      TEXT PRIMARY KEY,
	config_index INTEGER NOT NULL,
	config_id    TEXT NOT NULL,
	params       TEXT NOT NULL,
	replication  INTEGER NOT NULL,
	seed         TEXT NOT NULL,
	metrics      TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS failures (
	run_key      TEXT PRIMARY KEY,
	config_index INTEGER NOT NULL,
	config_id    TEXT NOT NULL,
	replication  INTEGER NOT NULL,
	seed         TEXT NOT NULL,
	error        TEXT NOT NULL
);`

func openDB(path string) (*sql.DB, error) {
	db, err := sql.Open("sqlite", "file:"+path+"?_pragma=journal_mode(WAL)&_pragma=synchronous(NORMAL)&_pragma=busy_timeout(10000)")
	if err != nil {
		return nil, err
	}
	db.SetMaxOpenConns(1)
	if _, err := db.Exec(schema); err != nil {
		db.Close()
		return nil, damaged(path, err)
	}
	return db, nil
}

// ErrStoreExists is returned when a store exists and resume was not asked.
var ErrStoreExists = errors.New("result store exists")

// OpenStore opens (creating) the store for spec at path. An existing
// store is only reopened with resume, and only if it holds the same
// experiment.
func OpenStore(path string, s *Spec, resume bool) (*Store, error) {
	_, statErr := os.Stat(path)
	exists := statErr == nil
	if exists && !resume {
		return nil, fmt.Errorf("%s: %w (use --resume to continue it, or remove it)", path, ErrStoreExists)
	}
	db, err := openDB(path)
	if err != nil {
		return nil, err
	}
	st := &Store{db: db, Path: path, Hash: s.Hash(), Spec: s.Canonical(), Label: s.Label, writer: true}
	var have string
	err = db.QueryRow(`SELECT value FROM meta WHERE key = 'spec_hash'`).Scan(&have)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		tx, err := db.Begin()
		if err != nil {
			db.Close()
			return nil, err
		}
		for k, v := range map[string]string{"spec_hash": st.Hash, "spec": st.Spec, "name": s.Name, "label": s.Label} {
			if _, err := tx.Exec(`INSERT INTO meta (key, value) VALUES (?, ?)`, k, v); err != nil {
				tx.Rollback()
				db.Close()
				return nil, err
			}
		}
		if err := tx.Commit(); err != nil {
			db.Close()
			return nil, err
		}
	case err != nil:
		db.Close()
		return nil, damaged(path, err)
	case have != st.Hash:
		db.Close()
		return nil, fmt.Errorf("%s holds another experiment (spec hash %s, this spec %s)", path, have, st.Hash)
	}
	return st, nil
}

// OpenExisting opens a store for reading (reports, exports, merges).
func OpenExisting(path string) (*Store, error) {
	if _, err := os.Stat(path); err != nil {
		return nil, err
	}
	db, err := openDB(path)
	if err != nil {
		return nil, err
	}
	st := &Store{db: db, Path: path}
	if err := db.QueryRow(`SELECT value FROM meta WHERE key = 'spec_hash'`).Scan(&st.Hash); err != nil {
		db.Close()
		if d := damaged(path, err); strings.Contains(d.Error(), "damaged") {
			return nil, d
		}
		return nil, fmt.Errorf("%s: not a gridsched result store: %w", path, err)
	}
	db.QueryRow(`SELECT value FROM meta WHERE key = 'spec'`).Scan(&st.Spec)
	db.QueryRow(`SELECT value FROM meta WHERE key = 'label'`).Scan(&st.Label)
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

// Insert commits one finished run. Inserting a run that is already there
// is a no-op (the first result stands; runs are deterministic anyway).
func (st *Store) Insert(r Run, metrics map[string]float64) error {
	return st.InsertBatch([]Run{r}, []map[string]float64{metrics})
}

// InsertBatch commits finished runs in one transaction (group commit: one
// fsync for all of them). Either all are stored or none.
func (st *Store) InsertBatch(runs []Run, metrics []map[string]float64) error {
	if st.insert == nil {
		// Prepared once: parsing the statement for every run cost about
		// as much as executing it (issue 19, target 5).
		stmt, err := st.db.Prepare(`INSERT OR IGNORE INTO runs (run_key, config_index, config_id, params, replication, seed, metrics) VALUES (?, ?, ?, ?, ?, ?, ?)`)
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
		if _, err := ins.Exec(r.Key, r.Config.Index, r.Config.ID, pj, r.Rep, strconv.FormatUint(r.Seed, 10), string(mj)); err != nil {
			return fmt.Errorf("run %s: %w", r.Key, err)
		}
	}
	for _, r := range runs {
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
	_, err := st.db.Exec(`INSERT OR REPLACE INTO failures (run_key, config_index, config_id, replication, seed, error) VALUES (?, ?, ?, ?, ?, ?)`,
		r.Key, r.Config.Index, r.Config.ID, r.Rep, strconv.FormatUint(r.Seed, 10), reason.Error())
	if err != nil {
		return damaged(st.Path, err)
	}
	return nil
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
	rows, err := st.db.Query(`SELECT run_key, config_index, config_id, params, replication, seed, metrics FROM runs ORDER BY config_index, replication`)
	if err != nil {
		return nil, damaged(st.Path, err)
	}
	defer rows.Close()
	var out []Row
	for rows.Next() {
		var r Row
		var pj, mj string
		if err := rows.Scan(&r.Key, &r.ConfigIndex, &r.ConfigID, &pj, &r.Rep, &r.Seed, &mj); err != nil {
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

// Merge copies the runs of the stores at paths into a new store at out.
// Every store must hold the same experiment (spec hash).
func Merge(out string, paths []string) (int, error) {
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
	for _, p := range paths {
		s, err := OpenExisting(p)
		if err != nil {
			return 0, err
		}
		if len(srcs) > 0 && s.Hash != srcs[0].Hash {
			return 0, fmt.Errorf("merge: %s holds another experiment than %s (spec hash %s vs %s)", p, paths[0], s.Hash, srcs[0].Hash)
		}
		srcs = append(srcs, s)
	}
	db, err := openDB(out)
	if err != nil {
		return 0, err
	}
	defer db.Close()
	tx, err := db.Begin()
	if err != nil {
		return 0, err
	}
	defer tx.Rollback()
	meta, err := srcs[0].db.Query(`SELECT key, value FROM meta`)
	if err != nil {
		return 0, err
	}
	for meta.Next() {
		var k, v string
		meta.Scan(&k, &v)
		if _, err := tx.Exec(`INSERT INTO meta (key, value) VALUES (?, ?)`, k, v); err != nil {
			meta.Close()
			return 0, err
		}
	}
	meta.Close()
	n := 0
	for _, s := range srcs {
		rows, err := s.db.Query(`SELECT run_key, config_index, config_id, params, replication, seed, metrics FROM runs`)
		if err != nil {
			return 0, err
		}
		for rows.Next() {
			var k, cid, pj, seed, mj string
			var ci, rep int
			if err := rows.Scan(&k, &ci, &cid, &pj, &rep, &seed, &mj); err != nil {
				rows.Close()
				return 0, err
			}
			res, err := tx.Exec(`INSERT OR IGNORE INTO runs (run_key, config_index, config_id, params, replication, seed, metrics) VALUES (?, ?, ?, ?, ?, ?, ?)`, k, ci, cid, pj, rep, seed, mj)
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
