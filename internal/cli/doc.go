// Package cli is mongobench's command line: its subcommands, flags, help,
// output and exit codes. It is the only package that touches standard
// output, the environment and the process's exit status; everything it
// needs done it asks of the other packages.
package cli
