#pragma once
// How the controller's heap gives memory back, for campaigns whose tables reach hundreds of MiB
// (a 1,000-host pairwise fabric: a million points, a million links; bench/README.md
// "1,000 agents"). glibc-specific; elsewhere these do nothing.

namespace rdmabench {

// Every allocation of 1 MiB or more its own mapping, given back when freed. glibc's default
// threshold rises to the size of the largest mapping freed so far (up to 32 MiB), so once a large
// table is freed, the next tables come from the heap, and the holes they leave stay in the RSS.
void map_large_allocations();

// Gives the heap's free pages back to the system (malloc_trim): between a campaign's rounds and
// its verdicts, what the rounds freed.
void return_free_heap();

}  // namespace rdmabench
