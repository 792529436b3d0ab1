// Package results stores, resumes and summarises the trials of an experiment.
//
// A run appends one JSON line per finished trial to trials.jsonl in the
// experiment's result directory. The file is the single source of truth:
// aggregation, figures and tables are computed from it, and a rerun skips every
// (cell, trial) already stored.
//
// # Invariants
//
//   - One writer per directory: Open takes the directory's exclusive lock
//     (flock on .lock, released by the kernel even on SIGKILL) before it
//     reads, repairs or rewrites anything, and the Store holds it until Close.
//     A second Open fails with a *BusyError and changes nothing. Rewriting
//     (--force) is a method of the open Store, so it happens under the lock.
//   - Records are encoded by encoding/json (AppendRecord) and written in
//     batches of whole lines, one write call per batch, at most flushDelay
//     (100 ms) after they were appended, at once when a batch reaches
//     flushBytes (64 KiB), and on Sync and Close. The file only ever grows between opens. A process
//     killed at any instant leaves whole lines plus at most one torn last
//     line: bytes without a final newline (a partial record, or NULs a crash
//     left). Open warns and truncates it away before appending; Read skips
//     it. A kill loses at most the records of the last 100 ms not yet
//     written; their trials are not stored, so a resumed run reruns them.
//     After a failed write the store takes no more records.
//   - A complete line (ending in a newline) that is not a record, wherever it
//     is, is a *CorruptError naming file and line, and nothing is changed: it
//     may hold a finished trial, so it is never dropped silently.
//   - A result directory is new, empty, or holds trials.jsonl or .lock;
//     CheckDir refuses anything else, so outputs never overwrite foreign files,
//     and a directory holding a symbolic link; no write into a result
//     directory follows a link (internal/fileutil's ...In functions).
//     Files are written with mode 0666 less the umask.
//   - Only settled records count as done: status "ok", or "infeasible" (the
//     target is below what the mechanism can reach on the data); a failed
//     or skipped trial reruns. Aggregates read "ok" records only.
//   - A number that does not apply or is not finite is stored as JSON null
//     (one type per field): the ε, ε target and ε spent of a non-private
//     reference or an oracle-tuned trial read back as +Inf, any other null
//     as NaN. Schema-2 stores' strings "inf", "-inf" and "nan" still read.
//   - Every reader gets records of the current schema: Record.UnmarshalJSON
//     upgrades older ones as it decodes them (schema migration lives there
//     and nowhere else).
//   - Aggregates are computed from records sorted by (cell key, trial), so the
//     same records give bit-identical summaries whatever order they were
//     written in.
//
// # Shards
//
// A shard (dplab run --shard i/N) writes shards/shard-i-of-N.jsonl under its
// own lock (OpenShard; shards/shard-i-of-N.lock), never the directory's, so
// shards run at once on hosts sharing the directory. MergeShards appends,
// under the directory's lock, every shard line the store does not hold byte
// for byte (a repeated merge adds nothing); records of one trial that differ
// beyond their timing fields are a *ConflictError and nothing is appended.
// An unsharded run first asks UnmergedShards whether a shard file holds a
// settled trial the store lacks, and refuses until dplab merge. An unsharded
// run also refuses a store holding trials of neither the spec's name nor its
// cells (ExperimentCheck): one experiment per directory.
//
// # Renders read a finished store
//
// dplab render takes the directory's lock shared (ReadLockDir) before it
// reads the manifest, the spec copy and the store, and holds it until its
// outputs are written: renders share it, a run or merge holding the
// directory makes the render fail with a *BusyError, and a render holding it
// makes a run or merge refuse. A render therefore never reads a store a run
// is appending to (TestRenderDuringRunRefused). dplab plan and dplab report
// write nothing in the directory and read without the lock.
//
// # Memory
//
// No command holds a store's records: memory grows with cells, not trials.
// Scan (and Open, OpenShard, Rewrite) read a store scanChunk (4 MiB) at a
// time, decode the chunk's lines on up to GOMAXPROCS goroutines into reused
// records and hand them to the caller in file order (a record is valid only
// during the call). Aggregator keeps per trial only the numbers a
// CellSummary reads, in pages of 512 trials indexed by trial (a rerun's
// record replaces the earlier one in place), and a column equal in every
// trial once; done-sets and plans are KeySets, a bit per trial; MergeShards
// keeps a 128-bit digest per distinct line. Read holds a whole store: tests
// and small stores only. The process tests hold it (make test-process,
// make test-memory): TestMemoryBoundedByCells (a run's and a render's peak
// RSS grow by < 1 KB a trial from 5·10⁴ to 2·10⁵ trials),
// TestMergeMemoryBounded (< 512 bytes a trial) and TestMillionTrialsMemory
// (both < 300 MB at 10⁶ trials).
//
// # References
//
// Citation keys are listed once, with their full entries, in
// docs/references.md.
package results
