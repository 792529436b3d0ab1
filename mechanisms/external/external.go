package external

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/dplab/dplab/datasets"
	"github.com/dplab/dplab/internal/rngs"
	"github.com/dplab/dplab/mechanisms"
	"github.com/dplab/dplab/mechanisms/accounting"
)

// Name is the mechanism name of an external block.
const Name = "external"

// The privacy modes of an external mechanism.
const (
	ModeDeclare   = "declare"   // the worker chooses its noise and declares its ledger
	ModeCalibrate = "calibrate" // dplab calibrates the noise of the spec's event family
)

// Placeholder is the JSON string that stands for the calibrated noise in a
// calibrate-mode event template.
const Placeholder = `"$noise"`

// DefaultTimeout bounds one trial's round trip when the spec sets none.
const DefaultTimeout = 10 * time.Minute

// StartTimeout is the least time a new worker gets to answer the hello (an
// interpreter importing its libraries on a loaded machine can take seconds);
// a larger trial timeout applies to it too.
const StartTimeout = time.Minute

// ProtocolVersion is the version of docs/external.md's protocol that the
// hello messages carry: a block of output "linear" speaks version 1, one
// of output "predictions" version ProtocolPredictions.
const ProtocolVersion = 1

// ProtocolPredictions is the protocol version that adds the evaluation
// file and the predictions reply (output "predictions").
const ProtocolPredictions = 2

// The outputs of an external mechanism: what its reply holds.
const (
	OutputLinear      = "linear"      // a linear model, θ and intercept (the default)
	OutputPredictions = "predictions" // predictions on dplab's evaluation rows
)

// Config is an external mechanism's resolved [mechanism.external] table.
type Config struct {
	// Command is the worker's argv, with the arguments that name files
	// made absolute.
	Command []string
	// Dir is the worker's working directory (the spec's).
	Dir string
	// Mode is ModeDeclare or ModeCalibrate.
	Mode string
	// Event is, in ModeCalibrate, the event family: an event's JSON with
	// Placeholder where the noise goes.
	Event string
	// Timeout bounds each trial's round trip; 0 means DefaultTimeout.
	Timeout time.Duration
	// Tasks are the tasks the worker fits; nil means both, regression
	// first.
	Tasks []datasets.Task
	// Output is OutputLinear ("" too) or OutputPredictions.
	Output string `json:",omitempty"`
}

// ParseTask returns the task called name ("regression" or "binary").
func ParseTask(name string) (datasets.Task, error) {
	for _, t := range []datasets.Task{datasets.Regression, datasets.Binary} {
		if t.String() == name {
			return t, nil
		}
	}
	return 0, fmt.Errorf("unknown task %q: want %q or %q", name, datasets.Regression, datasets.Binary)
}

// Family returns the event of the calibrate-mode family at noise x.
func (c Config) Family(x float64) (accounting.Event, error) {
	if !strings.Contains(c.Event, Placeholder) {
		return nil, fmt.Errorf("the event template holds no %s placeholder", Placeholder)
	}
	src := strings.ReplaceAll(c.Event, Placeholder, strconv.FormatFloat(x, 'g', -1, 64))
	return accounting.UnmarshalEvent([]byte(src))
}

// Check reports what makes the configuration unusable, naming its key.
func (c Config) Check() error {
	if len(c.Command) == 0 || c.Command[0] == "" {
		return errors.New("command: give the worker's argv, e.g. [\"python3\", \"my_mechanism.py\"]")
	}
	switch c.Mode {
	case ModeDeclare:
		if c.Event != "" {
			return errors.New("event: only mode \"calibrate\" takes an event family (a declare-mode worker declares its own)")
		}
	case ModeCalibrate:
		if c.Event == "" {
			return fmt.Errorf("event: mode \"calibrate\" needs the event family, an event's JSON with %s for the noise", Placeholder)
		}
		if _, err := c.Family(1); err != nil {
			return fmt.Errorf("event: %w", err)
		}
	default:
		return fmt.Errorf("mode: %q: want %q or %q", c.Mode, ModeDeclare, ModeCalibrate)
	}
	if c.Timeout < 0 {
		return errors.New("timeout: must be ≥ 0 seconds (0 means 600)")
	}
	if c.Output != "" && c.Output != OutputLinear && c.Output != OutputPredictions {
		return fmt.Errorf("output: %q: want %q (θ and intercept) or %q (predictions on dplab's evaluation rows)", c.Output, OutputLinear, OutputPredictions)
	}
	return nil
}

// Predicts reports whether the worker answers with predictions (output
// "predictions") rather than a linear model.
func (c Config) Predicts() bool { return c.Output == OutputPredictions }

func (c Config) timeout() time.Duration {
	if c.Timeout == 0 {
		return DefaultTimeout
	}
	return c.Timeout
}

// id is the configuration's identity: what tells apart two external
// blocks' built mechanisms.
func (c Config) id() string {
	b, _ := json.Marshal(c)
	return string(b)
}

// Params is an external mechanism's params table: the spec's table at one
// sweep point, sent to the worker as it is.
type Params struct{ Table map[string]any }

// UnmarshalTOML implements toml.Unmarshaler: it keeps the raw table.
func (p *Params) UnmarshalTOML(raw any) error {
	m, ok := raw.(map[string]any)
	if !ok {
		return fmt.Errorf("params must be a table, got %v", raw)
	}
	p.Table = m
	return nil
}

// Validate implements mechanisms.Params: the worker validates its params.
func (Params) Validate() error { return nil }

// Entry returns the mechanism entry of an external block configured by
// cfg (not in the registry: it is the spec's).
func Entry(cfg Config) mechanisms.Entry {
	info := mechanisms.Info{Name: Name, Title: "External", Ref: "", Private: true, Version: 1, Tasks: cfg.Tasks}
	if len(info.Tasks) == 0 {
		info.Tasks = []datasets.Task{datasets.Regression, datasets.Binary}
	}
	return mechanisms.NewEntry(info, cfg.id(), func(p Params) (mechanisms.Mechanism, error) {
		if err := cfg.Check(); err != nil {
			return nil, err
		}
		return &Mechanism{cfg: cfg, params: p.Table}, nil
	})
}

// Mechanism is one external block at one sweep point.
type Mechanism struct {
	cfg    Config
	params map[string]any
}

// request is the fit message of docs/external.md.
type request struct {
	Type    string         `json:"type"`
	ID      int64          `json:"id"`
	Task    string         `json:"task"`
	Train   trainFiles     `json:"train"`
	Epsilon float64        `json:"epsilon"`
	Delta   float64        `json:"delta"`
	Noise   *float64       `json:"noise,omitempty"`
	Params  map[string]any `json:"params"`
	Seed    string         `json:"seed"`
	Eval    *evalFiles     `json:"eval,omitempty"` // output "predictions" only
}

// trainFiles names the training split's files.
type trainFiles struct {
	X    string `json:"x"`
	Y    string `json:"y"`
	Rows int    `json:"n"`
	Cols int    `json:"d"`
}

// reply is a worker's answer to a fit request.
type reply struct {
	Type        string             `json:"type"`
	ID          int64              `json:"id"`
	Model       *model             `json:"model"`
	Predictions json.RawMessage    `json:"predictions"` // output "predictions": a .npy file's path
	Event       json.RawMessage    `json:"event"`
	Diagnostics map[string]float64 `json:"diagnostics"`
	Error       string             `json:"error"`
}

// model is a linear model's reply.
type model struct {
	Theta     []float64 `json:"theta"`
	Intercept float64   `json:"intercept"`
}

// Fit implements mechanisms.Mechanism: it sends the trial to a worker of
// the pool and checks its answer.
func (m *Mechanism) Fit(ctx context.Context, train *datasets.Dataset, b mechanisms.Budget, rs rngs.Streams) (*mechanisms.Release, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	p := poolFor(m.cfg)
	p.enter()
	defer p.leave()
	files, err := p.data(train)
	if err != nil {
		return nil, fmt.Errorf("external: write the training split: %w", err)
	}
	req := request{Type: "fit", ID: nextID(), Task: train.Task.String(), Train: files,
		Epsilon: b.Epsilon, Delta: b.Delta, Params: m.params,
		Seed: strconv.FormatUint(rs.Get("external").Uint64(), 10)}
	if req.Params == nil {
		req.Params = map[string]any{}
	}
	var family accounting.Event
	if m.cfg.Mode == ModeCalibrate {
		x, err := b.Calibrate(func(x float64) accounting.Event {
			e, _ := m.cfg.Family(x) // checked at build
			return e
		}, accounting.Bracket{})
		if err != nil {
			return nil, fmt.Errorf("external: calibrate the noise: %w", err)
		}
		req.Noise = &x
		family, _ = m.cfg.Family(x)
	}
	var eval mechanisms.EvalRows
	if m.cfg.Predicts() {
		var ok bool
		if eval, ok = mechanisms.EvalRowsFrom(ctx); !ok {
			return nil, errors.New(`external: output "predictions" needs the rows the trial scores, which this fit was not given (an audit or a pre-processed block cannot score predictions)`)
		}
		if req.Eval, err = p.evalData(train, eval, req.ID); err != nil {
			return nil, fmt.Errorf("external: write the evaluation rows: %w", err)
		}
		// The out file goes whatever the reply: read, refused, an error
		// reply, a timeout, or another path named.
		defer os.Remove(req.Eval.Out)
	}
	var rel *mechanisms.Release
	err = p.call(ctx, req, m.cfg.timeout(), func(rep *reply) (err error) {
		rel, err = m.release(rep, req, train.Cols(), family, eval)
		return err
	})
	return rel, err
}

// release checks a worker's reply to req and returns its release.
// eval holds the rows the predictions of output "predictions" are on.
func (m *Mechanism) release(rep *reply, req request, d int, family accounting.Event, eval mechanisms.EvalRows) (*mechanisms.Release, error) {
	if rep.Type == "error" {
		return nil, &errReply{rep.Error}
	}
	var model mechanisms.Model
	var err error
	if m.cfg.Predicts() {
		model, err = m.predictions(rep, req, eval)
	} else {
		model, err = linear(rep, d)
	}
	if err != nil {
		return nil, err
	}
	if len(rep.Event) == 0 {
		return nil, errors.New("the reply holds no event (the ledger, as dplab account json prints it)")
	}
	ev, err := accounting.UnmarshalEvent(rep.Event)
	if err != nil {
		return nil, fmt.Errorf("the worker's event: %w", err)
	}
	if _, ok := ev.(accounting.NonPrivate); ok {
		// The runner exempts a non-private release from its budget check:
		// accepted, the trial would spend ε = ∞ in a private cell.
		return nil, errors.New(`the worker's event is {"kind":"non_private"}: an external mechanism is private, its event is the ledger of the noise it added`)
	}
	rel := &mechanisms.Release{Model: model, Event: ev, Calibrated: true}
	if family != nil {
		got, _ := json.Marshal(ev)
		want, _ := json.Marshal(family)
		if string(got) != string(want) {
			return nil, fmt.Errorf("calibrate mode: the worker's event %s is not the spec's family at the noise sent, %s", got, want)
		}
		rel.Noise = map[string]float64{"noise": *req.Noise}
	}
	for k, v := range rep.Diagnostics {
		if !finite(v) {
			return nil, fmt.Errorf("diagnostic %q is %v", k, v)
		}
	}
	if len(rep.Diagnostics) > 0 {
		rel.Stats = rep.Diagnostics
	}
	return rel, nil
}

// linear returns the linear model of a reply of output "linear" for d
// features.
func linear(rep *reply, d int) (*mechanisms.Linear, error) {
	if rep.Model == nil {
		if len(rep.Predictions) > 0 {
			return nil, errors.New(`the reply holds predictions, not a model: give the block output = "predictions"`)
		}
		return nil, errors.New("the reply holds no model")
	}
	if len(rep.Model.Theta) != d {
		return nil, fmt.Errorf("the model's theta has %d coefficients, the training data %d features", len(rep.Model.Theta), d)
	}
	lin := &mechanisms.Linear{Theta: rep.Model.Theta, Intercept: rep.Model.Intercept}
	for i, v := range lin.Theta {
		if !finite(v) {
			return nil, fmt.Errorf("the model's theta[%d] is %v", i, v)
		}
	}
	if !finite(lin.Intercept) {
		return nil, fmt.Errorf("the model's intercept is %v", lin.Intercept)
	}
	return lin, nil
}

// EventShapes implements mechanisms.EventShaper: in calibrate mode the
// family's; a declare-mode worker's ledger is known only from its reply
// (accounted, and refused if the accountant cannot, per trial).
func (m *Mechanism) EventShapes(mechanisms.Budget) ([]accounting.Event, error) {
	if m.cfg.Mode != ModeCalibrate {
		return nil, nil
	}
	e, err := m.cfg.Family(1)
	if err != nil {
		return nil, err
	}
	return []accounting.Event{e}, nil
}

// Close stops the idle workers of the mechanism's pool and removes its data
// directory once no trial is running (the runner calls it when a run ends).
func (m *Mechanism) Close() error { return closePool(m.cfg) }

func finite(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }
