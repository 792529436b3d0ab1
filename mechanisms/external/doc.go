// Package external runs a mechanism written in any language as a separate,
// long-lived worker process that speaks the line-delimited JSON protocol of
// docs/external.md over its stdin and stdout. A spec names it with a
// [[mechanism]] block of name "external" and a [mechanism.external] table
// (command, mode, event, timeout, files); harness/plan resolves the table
// into a Config and builds the block's mechanisms.Entry with Entry, outside
// the mechanism registry, so the runner, tuning, storage and rendering treat
// it as any mechanism.
//
// # Privacy
//
// In mode "declare" the worker chooses its noise and answers with its
// ledger, a dplab event; the runner accounts it with the spec's accountant
// and, the release being marked Calibrated, fails the trial when it spends
// more than the target (mechanisms.Release.CheckSpent). In mode
// "calibrate" the spec gives the event family as the JSON of an event whose
// noise field is the string "$noise"; the fit calibrates the noise with the
// run's Calibrator (mechanisms.Budget.Calibrate, so tuning's wrap is
// charged), sends it, and requires the worker's event to equal the family
// at that noise.
//
// # Workers
//
// Workers are pooled by command and working directory: a fit takes an idle
// worker or starts one (lazily), so a run holds at most one per concurrent
// trial. A worker that exits, passes the trial's timeout (it is killed),
// writes a line that is not a reply to the request, or returns an invalid
// model or event fails that trial only, with the tail of its stderr in the
// error, and is discarded: the next fit starts a new one. An error reply
// (the worker caught an exception) fails the trial and keeps the worker.
// Training data is written once per training set as .npy files (package
// internal/npy) into a temporary directory of the pool, removed by Close
// (or, when the process was killed, by a later process's newStaging).
//
// # Predictions
//
// A block of output "predictions" (Config.Output, protocol version 2)
// answers with predictions instead of a linear model: each request names a
// features-only evaluation file of the rows the trial scores (the runner's
// mechanisms.EvalRows, from the fit's context), written once per split, and
// the reply names a .npy file of one prediction per row, read strictly
// (npy.Read) into a mechanisms.Predictions model.
//
// A spec that names a command is code: the command runs with the rights of
// the user running dplab.
package external
