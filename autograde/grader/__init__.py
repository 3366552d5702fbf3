"""The course's grader, loaded into the student's kernel by the hidden region of each test cell."""
