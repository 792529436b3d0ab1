// Command dplab regenerates the figures and tables of differential-privacy
// papers and compares private learners side by side, with every reported ε the
// privacy the whole procedure spent.
//
// Usage:
//
//	dplab <command> [arguments]
//
// Run "dplab help" for the list of commands and "dplab <command> --help" for
// one command's flags. Exit codes: 0 ok, 1 run failure, 2 bad usage or bad input,
// 128 + the signal's number when stopped by SIGINT (130) or SIGTERM (143).
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	_ "github.com/dplab/dplab/harness/report/kinds" // the figure and table kinds of their own packages register
	"github.com/dplab/dplab/internal/suggest"
)

// command is one entry of the CLI table. The table's order is the help order.
type command struct {
	Name      string
	UsageLine string // after "dplab "
	Short     string // one line for the command list
	Long      string // shown by "dplab <command> --help" above the flags
	Run       func(ctx context.Context, args []string, stdout, stderr io.Writer) error
}

// commands is the CLI table; initialised in init to break the reference cycle
// through cmdHelp.
var commands []*command

func init() {
	commands = []*command{
		runCommand,
		planCommand,
		validateCommand,
		renderCommand,
		pruneCommand,
		reportCommand,
		docsCommand,
		equivalenceCommand,
		mergeCommand,
		submitCommand,
		accountCommand,
		auditCommand,
		datasetsCommand,
		mechanismsCommand,
		kindsCommand,
		versionCommand,
		{
			Name:      "help",
			UsageLine: "help [command]",
			Short:     "show help for dplab or one command",
			Run:       cmdHelp,
		},
	}
}

// signalGrace is how long a command may take to stop after SIGINT or
// SIGTERM before the process exits anyway. Commands watch their context
// (run stops scheduling, abandons running fits and records the
// interruption; plan and validate stop their loops), so they normally
// return well within it.
const signalGrace = 10 * time.Second

func main() {
	started = processStart()
	ctx, cancel := context.WithCancel(context.Background())
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	var got atomic.Value // the first signal received
	go func() {
		got.Store(<-sigs)
		cancel()
	}()
	stop := func() { signal.Stop(sigs) } // a second signal terminates at once
	done := make(chan int, 1)
	go func() { done <- Main(ctx, os.Args[1:], os.Stdout, os.Stderr) }()
	code := waitMain(ctx, stop, done, os.Stderr, signalGrace)
	if sig, ok := got.Load().(os.Signal); ok {
		code = signalExitCode(sig)
	}
	os.Exit(code)
}

// started is when this process started (set by main), or zero when Main is
// called from a test: a command then measures from its own call.
var started time.Time

// processStart returns when this process started, from its start time in
// /proc/self/stat (field 22, clock ticks since boot, proc(5)) and the
// system's uptime in /proc/uptime, both to a hundredth of a second (Linux
// exports clock ticks at USER_HZ = 100); now where they cannot be read.
// It includes what happens before main: the exec, the runtime's and the
// packages' initialisation.
func processStart() time.Time {
	now := time.Now()
	stat, err := os.ReadFile("/proc/self/stat")
	up, err2 := os.ReadFile("/proc/uptime")
	i := strings.LastIndexByte(string(stat), ')') // the command name, in parentheses, may hold spaces
	if err != nil || err2 != nil || i < 0 {
		return now
	}
	f, u := strings.Fields(string(stat[i+1:])), strings.Fields(string(up))
	if len(f) < 20 || len(u) < 1 {
		return now
	}
	ticks, err := strconv.ParseFloat(f[19], 64) // field 22; f[0] is field 3
	uptime, err2 := strconv.ParseFloat(u[0], 64)
	age := uptime - ticks/100
	if err != nil || err2 != nil || age < 0 || age > 60 {
		return now
	}
	return now.Add(-time.Duration(age * float64(time.Second)))
}

// signalExitCode is the shell's convention for a process stopped by a
// signal: 128 + its number (130 for SIGINT, Ctrl-C; 143 for SIGTERM), so
// scripts and schedulers can tell an interrupted run from a failed one.
func signalExitCode(sig os.Signal) int {
	if s, ok := sig.(syscall.Signal); ok {
		return 128 + int(s)
	}
	return 130
}

// waitMain returns Main's exit code from done. SIGINT and SIGTERM are
// handled alike: the first cancels ctx and restores the default handling
// (stop), so that a second signal terminates at once; if the command has
// not returned within grace after the first, waitMain gives up on it and
// returns 1. (main replaces the code by 128 + the signal's number when a
// signal stopped the command.)
func waitMain(ctx context.Context, stop func(), done <-chan int, stderr io.Writer, grace time.Duration) int {
	defer stop()
	select {
	case code := <-done:
		return code
	case <-ctx.Done():
	}
	stop()
	select {
	case code := <-done:
		return code
	case <-time.After(grace):
		fmt.Fprintf(stderr, "dplab: interrupted; the command did not stop within %v\n", grace)
		return 1
	}
}

// Main runs the CLI with args (without the program name) and returns the exit code.
func Main(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		printUsage(stderr)
		return 2
	}
	name := args[0]
	if name == "-h" || name == "--help" || name == "-help" {
		printUsage(stdout)
		return 0
	}
	if name == "--version" || name == "-version" {
		name = "version"
	}
	cmd := lookupCommand(name)
	if cmd == nil {
		fmt.Fprintf(stderr, "dplab: unknown command %q\nRun 'dplab help' for usage.\n", name)
		return 2
	}
	err := cmd.Run(ctx, args[1:], stdout, stderr)
	if err == nil || errors.Is(err, flag.ErrHelp) {
		return 0
	}
	code := exitCode(err)
	fmt.Fprintf(stderr, "dplab %s: %v\n", cmd.Name, err)
	if code == 2 && isUsageError(err) {
		fmt.Fprintf(stderr, "Run 'dplab %s --help' for usage.\n", cmd.Name)
	}
	return code
}

func lookupCommand(name string) *command {
	for _, c := range commands {
		if c.Name == name {
			return c
		}
	}
	return nil
}

func printUsage(w io.Writer) {
	fmt.Fprint(w, "dplab reproduces and benchmarks differentially private learners.\n\nUsage:\n\n\tdplab <command> [arguments]\n\nCommands:\n\n")
	for _, c := range commands {
		fmt.Fprintf(w, "\t%-10s %s\n", c.Name, c.Short)
	}
	fmt.Fprint(w, "\nRun 'dplab <command> --help' for a command's flags.\n")
}

func cmdHelp(ctx context.Context, args []string, stdout, _ io.Writer) error {
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" || args[0] == "-help" {
		printUsage(stdout)
		return nil
	}
	c := lookupCommand(args[0])
	if c == nil {
		return usagef("unknown command %q", args[0])
	}
	// The command prints its own help, flags included, on --help.
	return c.Run(ctx, []string{"--help"}, stdout, io.Discard)
}

// usageError is bad usage of the CLI: exit code 2.
type usageError struct{ msg string }

func (e *usageError) Error() string { return e.msg }

// usagef returns a usage error (exit code 2).
func usagef(format string, args ...any) error {
	return &usageError{msg: fmt.Sprintf(format, args...)}
}

func isUsageError(err error) bool {
	var u *usageError
	return errors.As(err, &u)
}

// badInputError marks an error caused by the user's input (a spec, a data
// file, a privacy target): exit code 2.
type badInputError struct{ err error }

func (e *badInputError) Error() string { return e.err.Error() }
func (e *badInputError) Unwrap() error { return e.err }

// badInput marks err as caused by bad input (exit code 2).
func badInput(err error) error {
	if err == nil {
		return nil
	}
	return &badInputError{err: err}
}

// exitCode maps an error to the process exit code: 2 for usage and bad input,
// 1 for everything else (a run that failed).
func exitCode(err error) int {
	var b *badInputError
	if isUsageError(err) || errors.As(err, &b) {
		return 2
	}
	return 1
}

// newFlagSet returns a flag set for the command called name. Its Usage
// prints the command's usage line, long description and flags to help
// (stdout: "dplab run --help" is asked for, so it is output, not an error).
// Parsing itself prints nothing: a bad flag becomes one usage error naming
// it (see parseInterleaved), not the whole help text.
func newFlagSet(name string, help io.Writer) *flag.FlagSet {
	c := lookupCommand(name)
	if c == nil {
		panic("dplab: newFlagSet for unknown command " + name)
	}
	fs := flag.NewFlagSet(c.Name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Usage = func() {
		fs.SetOutput(help)
		defer fs.SetOutput(io.Discard)
		fmt.Fprintf(help, "Usage: dplab %s\n\n", c.UsageLine)
		if c.Long != "" {
			fmt.Fprintf(help, "%s\n\n", strings.TrimSpace(c.Long))
		}
		hasFlags := false
		fs.VisitAll(func(*flag.Flag) { hasFlags = true })
		if hasFlags {
			fmt.Fprintln(help, "Flags:")
			fs.PrintDefaults()
		}
	}
	return fs
}

// parseInterleaved parses flags that may appear before, between or after
// positional arguments ("dplab run a.toml -j 2 b.toml") and returns the
// positional arguments. "--" ends flag parsing.
func parseInterleaved(fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for {
		if err := parseQuiet(fs, args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				fs.Usage()
				return nil, err
			}
			return nil, usagef("%v%s", err, flagSuggestion(fs, err))
		}
		rest := fs.Args()
		if len(rest) == 0 {
			return pos, nil
		}
		// fs.Parse stops at the first positional argument, or after "--".
		if len(args) > len(rest) && args[len(args)-len(rest)-1] == "--" {
			return append(pos, rest...), nil
		}
		pos = append(pos, rest[0])
		args = rest[1:]
	}
}

// flagSuggestion is the "did you mean" of an unknown flag, as unknown keys
// get: " (did you mean --trials?)" for -trails; "" for any other parse
// error, or when no defined flag is close.
func flagSuggestion(fs *flag.FlagSet, err error) string {
	name, ok := strings.CutPrefix(err.Error(), "flag provided but not defined: -")
	if !ok {
		return ""
	}
	var names []string
	fs.VisitAll(func(f *flag.Flag) { names = append(names, f.Name) })
	c, ok := suggest.Closest(name, names)
	if !ok {
		return ""
	}
	dashes := "--"
	if len(c) == 1 {
		dashes = "-"
	}
	return " (did you mean " + dashes + c + "?)"
}

// parseQuiet parses args with fs's Usage silenced: the flag package calls
// Usage on every parse error, and the caller decides what to print.
func parseQuiet(fs *flag.FlagSet, args []string) error {
	usage := fs.Usage
	fs.Usage = func() {}
	defer func() { fs.Usage = usage }()
	return fs.Parse(args)
}
