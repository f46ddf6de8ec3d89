"""What a run will cost before it starts: a rehearsal of the run with made-up answers, nothing sent."""
