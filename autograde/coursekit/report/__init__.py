"""``make report``: what the class got wrong, at a glance.

* :mod:`.tables` — the class's scores as the gradebook holds them (:mod:`coursekit.grades`: the authoritative
  points) and the grader's records (:mod:`coursekit.autograded`) joined into the tables the instructor reads (with what to reteach for each mistake, from
  the assignment's plug-in, :mod:`coursekit.assignments`);
* :mod:`.written` — per written question, what manual marking has done; :mod:`.lateness` — the due date, every
  extension and every late submission with its grade;
* :mod:`.regrade_counts` — per question, the regrade requests filed, open and decided (:mod:`coursekit.regrade_book`);
* :mod:`.labels` — the names a person reads for the ids (cells, mistakes, checks), in the course's language;
* :mod:`.similarity` — which students' work is too alike to be independent: each student's solution cells
  (:mod:`.solutions`) fingerprinted once with copydetect (:mod:`.fingerprints`), junk statements dropped and what
  the release spells out set apart (:mod:`.statements`), and compared through an index;
* :mod:`.csv_files`, :mod:`.html_page`, :mod:`.figures` — the tables written out (CSV, one HTML page, SVG), and
  :mod:`.figure_text`, each chart in words for a screen reader;
  :mod:`.similarity_page` — the similarity section and a page per flagged pair, side by side;
* :mod:`.command` — ``python -m coursekit.report``.
"""
