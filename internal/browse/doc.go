// Package browse assembles and renders the pages of the results browser
// (`mongobench serve`): the runs listed and filtered, a run, runs
// compared with their histograms merged exactly, sweeps, SLA journeys,
// plans and a run that is still going. It reads result documents and the
// live feed's intervals handed to it and writes HTML to the io.Writer it
// is given; the HTTP layer and the store are internal/serve's.
package browse
