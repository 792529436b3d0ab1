// Package results stores, resumes and summarises the trials of an experiment.
//
// A run appends one JSON line per finished trial to trials.jsonl in the
// experiment's result directory. The file is the single source of truth:
// aggregation, figures and tables are computed from it, and a rerun skips every
// (cell, trial) already stored.
//
// # Invariants
//
//   - A record is written with one write call, and the file only ever grows
//     between opens. A process killed at any instant leaves whole lines plus at
//     most one torn last line; Open detects the torn line, warns, and truncates
//     it away before appending.
//   - Only records with Status "ok" count as done; a failed trial reruns.
//   - Non-finite numbers are stored as the strings "inf", "-inf" and "nan"
//     (encoding/json cannot encode them), never dropped.
//   - Aggregates are computed from records sorted by (cell key, trial), so the
//     same records give bit-identical summaries whatever order they were
//     written in.
//
// # References
//
//	[Hyndman96] R. J. Hyndman, Y. Fan. Sample quantiles in statistical
//	            packages. The American Statistician 50(4), 1996. (Type 7, used
//	            for the median and quartiles, as numpy's default.)
package results
