// Package progress shows a measurement as it goes: a run's one-line
// display (Progress: redrawn in place on a terminal, a status line every
// status interval in a log), the live line of its last interval read from
// the run's engine.Tally (LiveTally, Live), a study's step headers with
// the time left (StepClock, StepLine), and the progress of reading a
// large file (ReadProgress). It writes to the io.Writer it is handed.
package progress
