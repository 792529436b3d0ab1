package main

import (
	"context"
	"errors"
	"io"
)

var accountCommand = &command{
	Name:      "account",
	UsageLine: "account",
	Short:     "(not yet implemented)",
	Run: func(context.Context, []string, io.Writer, io.Writer) error {
		return errors.New("not yet implemented")
	},
}
