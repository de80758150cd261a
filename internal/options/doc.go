// Package options is the command line's options of the measuring
// commands and the rules every flag follows. It declares the one option
// set every command that measures accepts (Measure: results store,
// thresholds and --abort-on-fail, run group, node exporters and Atlas,
// stated limits, live metrics, reports, --json) on a pflag.FlagSet and
// turns it into the measuring environment's lab.Options; the flags of a
// study on one target (Study) and run's scenario settings (Run), with
// YCSB's -P files mapped by ycsbprops; and the rules of every flag: its
// MONGOBENCH_<FLAG> variable as its default (FromEnv), deprecated names
// kept as hidden aliases with a one-line note (Alias), typed values
// checked by the parser of the package that uses them.
//
// It reads no environment itself: the cli hands it a lookup (Env). Its
// errors are bad input, each naming its flag or variable.
package options
