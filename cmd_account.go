package main

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/dplab/dplab/mechanisms/accounting"
)

// accountCommand is "dplab account": its events, flags, queries and answers
// are mechanisms/accounting's (Request, one form per event kind in the kind
// table); the command parses the flags, asks and prints.
var accountCommand = &command{
	Name: "account",
	UsageLine: "account kinds [--json]   (every event kind with its JSON fields)\n" +
		"       dplab account EVENT [event flags] [--steps T] [--select poisson:MEAN | tnb:MEAN:ETA | geometric:MEAN | logarithmic:MEAN]\n" +
		"              (--delta D | --epsilon E | --order A) [--accountant rdp|pld|exact|all] [--orders default|grid|opacus|tfprivacy|integer]\n" +
		"              [--conversion default|classic] [--interval H] [--calibrate sigma] [--json]",
	Short: "evaluate or calibrate the privacy of a mechanism (RDP, PLD or exact)",
	Long:  accounting.QueryHelp(),
	Run:   cmdAccount,
}

func cmdAccount(_ context.Context, args []string, stdout, _ io.Writer) error {
	var req accounting.Request
	fs := newFlagSet("account", stdout)
	req.DefineFlags(fs)
	asJSON := fs.Bool("json", false, "print one JSON object")
	pos, err := parseInterleaved(fs, args)
	if err != nil {
		return err
	}
	req.MarkGiven(fs)
	if len(pos) != 1 {
		return badInput(fmt.Errorf("want exactly one EVENT (%s), got %d arguments", strings.Join(accounting.EventNames(), ", "), len(pos)))
	}
	if pos[0] == "kinds" {
		return accounting.WriteKinds(stdout, *asJSON)
	}
	ans, err := req.Answer(pos[0])
	if err != nil {
		return badInput(err)
	}
	if *asJSON {
		return ans.WriteJSON(stdout)
	}
	ans.WriteText(stdout)
	return nil
}
