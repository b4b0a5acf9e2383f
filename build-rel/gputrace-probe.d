build-rel/gputrace-probe: probe/gputrace-probe.c
