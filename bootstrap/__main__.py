from bootstrap.program import run

run()
