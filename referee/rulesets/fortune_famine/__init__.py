"""Fortune & Famine (ruleset id ``fortune-famine``): 2 to 6 players hire
workers and wizards, pay them, and store grain over 3 Years of seasons
(docs/contracts/fortune-famine/RULES.md, docs/contracts/fortune-famine/FORMAT.md).

The pure engine (no Flask, SQL or click):

- :mod:`.cards` (FF3-FF4): the deck, its checks (``deck_problems``), card ids;
- :mod:`.state` (FF2, FF5-FF6): the table and the set-up from the seed;
- :mod:`.legal`: the rules' limits as predicates (FF9, FF11, FF13-FF14) and
  every outcome of an economy order (FF16-FF18, also what FF22's audit needs);
- :mod:`.flow` (FF6-FF8, FF11-FF13): how the match moves on between steps;
- :mod:`.orders` (FF7, FF10-FF18): ``check_order`` (one seat's order, live),
  ``close_step`` (a step closed, FF7's defaults for missing orders);
- :mod:`.match`: ``parse_match``, ``play``, ``resolve`` (the result, or with
  ``details`` the whole state), ``result_json``, ``detail_json``, ``upcoming``;
- :mod:`.rebuild`: ``table_from_details``, the table again from a detailed result;
- :mod:`.options` and :mod:`.view` (FF21): ``options(table, seat)``,
  ``view(details, viewer)``, ``result_for(details, viewer)``;
- :mod:`.randomplay`: random legal orders from the options.

Choices made where the contract leaves a detail open (each pinned by a test):

- deck codes: a deck's own ``name`` is ``deck/bad_name``, a type's name,
  id, grade, gives, steals, split, a missing required field, a field of
  another kind or a ``payment``/``reward`` that is no object of its keys
  ``deck/bad_type``; a value out of range (payment, reward, amount, a
  ``must`` amount of 1) ``deck/bad_number``; a missing or unknown kind
  ``deck/unknown_kind``; too many cards in all ``deck/bad_cards``; a row's
  shape or year, corner, count ``deck/bad_row``; a row naming no type
  ``deck/unknown_type`` unless it names a refused type; ``no_common_farmer``
  is not added when a type ``common-farmer`` was itself refused; a null
  optional field (names, payment, reward, split) is the field left out;
- ``match/unknown_seat`` is checked with the file's static parts (the shape
  of ``orders``), not when the round is replayed; a player entry with a key
  besides seat, name and garnets is ``match/bad_player`` (FORMAT: "exactly");
  ``settings: null`` is the default; ``host_entered`` numbers may be any
  whole numbers;
- a key of another kind of order is ``order/wrong_step`` even when null; a
  trade's ``"at": null`` in an economy order is ``payment``, any ``at`` in a
  hire or attack trade is ``trade/bad``;
- a used Evrathor or Chysarion leaves the Kingdom once the order's list is
  done, so naming it twice is ``attack/repeated_card`` / ``chysarion/repeated``;
- a defaulted (or ``{}``) attack turn is recorded as an attack using nothing;
- the host's view before the first step closes is the public one (season 1's
  burned card is drawn by the seed); each seat's private data is kept once,
  under ``own`` in the detailed result, and its view reads only its own;
- options: ``cards`` in board order, for each card take, bid, claim; ``free``
  lists every worker needing no payment (the Pickpocket, Philosopher, Seer
  and Trader with a reward of 0).
"""
