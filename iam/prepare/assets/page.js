// The dossier page: clicking a move shows its position's board and his replies; a drill of the prepared lines.
// No library.
"use strict";
(function () {
  var NODES = JSON.parse(document.getElementById("nodes").textContent);

  function pct(x) { return (x * 100).toFixed(x < 0.1 ? 1 : 0) + "%"; }

  function cell(row, text, cls) {
    var td = document.createElement("td");
    td.textContent = text;
    if (cls) { td.className = cls; }
    row.appendChild(td);
    return td;
  }

  function head(table, names) {
    var row = document.createElement("tr");
    names.forEach(function (name) {
      var th = document.createElement("th");
      th.textContent = name;
      row.appendChild(th);
    });
    table.tHead.replaceChildren(row);
  }

  function facts(node) {
    var text = node.games ? "reached in " + node.games + " of his games (any move order)" : "not in his games";
    if (node.value !== "–") { text += "; judge " + node.value; }
    if (node.expected !== null) { text += ", expected over his replies " + node.expected; }
    return text + ".";
  }

  function hisReplies(table, node) {
    head(table, ["his reply", "probability", "games here", "from", "judge"]);
    node.replies.forEach(function (r) {
      var row = table.tBodies[0].insertRow();
      cell(row, r.san);
      var p = cell(row, "", "num");
      if (r.belief !== null) {
        var bar = document.createElement("span");
        bar.className = "bar";
        bar.style.width = Math.round(r.belief * 60) + "px";
        p.appendChild(bar);
        p.appendChild(document.createTextNode(pct(r.belief)));
      } else { p.textContent = "–"; }
      cell(row, r.games ? r.games + " of " + node.games : "–", "num");
      cell(row, r.source);
      cell(row, r.value, "num");
    });
    if (node.other > 0.0005) {
      var rest = table.tBodies[0].insertRow();
      cell(rest, "others");
      cell(rest, pct(node.other), "num");
      cell(rest, ""); cell(rest, "model"); cell(rest, "");
    }
  }

  function ourMoves(table, node) {
    head(table, ["our move", "prepared", "his opponents' games", "judge", "expected"]);
    node.replies.forEach(function (r) {
      var row = table.tBodies[0].insertRow();
      cell(row, r.san);
      cell(row, r.prepared === "chosen" ? "★ chosen" : (r.prepared ? "☆ alternative" : ""));
      cell(row, r.games ? r.games + " of " + node.games : "–", "num");
      cell(row, r.value, "num");
      cell(row, r.expected, "num");
    });
  }

  function show(side, key) {
    var node = NODES[side][key];
    var panel = document.getElementById("panel" + side);
    var board = document.getElementById("b" + side + "-" + key);
    panel.querySelector(".board").replaceChildren(board.content.cloneNode(true));
    panel.querySelector(".where").textContent = (node.his ? "He is to move after " : "We are to move after ") +
      node.title;
    if (node.title === "the start position") {
      panel.querySelector(".where").textContent = (node.his ? "He is" : "We are") + " to move in the start position";
    }
    panel.querySelector(".facts").textContent = facts(node);
    var table = panel.querySelector("table.replies");
    table.tBodies[0].replaceChildren();
    (node.his ? hisReplies : ourMoves)(table, node);
    panel.dataset.node = key;
    document.querySelectorAll("#side" + side + " ul.tree button.mv").forEach(function (b) {
      b.classList.toggle("on", b.dataset.node === String(key));
    });
  }

  document.addEventListener("click", function (event) {
    var target = event.target.closest("[data-node]");
    if (!target) { return; }
    show(Number(target.dataset.side), Number(target.dataset.node));
    if (target.classList.contains("go")) { return; }
    event.preventDefault();
  });

  window.addEventListener("beforeprint", function () {
    document.querySelectorAll("details").forEach(function (details) { details.open = true; });
  });

  NODES.forEach(function (nodes, side) { show(side, 0); });

  // The drill: we play our side of the prepared lines, his replies drawn from his probabilities.
  var DRILL = JSON.parse(document.getElementById("drill").textContent);

  function Drill(box) {
    this.box = box;
    this.side = Number(box.dataset.side);
    this.data = DRILL[this.side];
    this.right = 0;
    this.asked = 0;
    this.picked = null;
  }

  Drill.prototype.say = function (text, cls) {
    var status = this.box.querySelector(".status");
    status.textContent = text;
    status.className = "status" + (cls ? " " + cls : "");
  };

  Drill.prototype.draw = function () {
    var board = document.getElementById("b" + this.side + "-" + this.key);
    this.box.querySelector(".board").replaceChildren(board.content.cloneNode(true));
    this.box.querySelector(".moves").textContent = this.played.join(" ");
    this.box.querySelector(".score").textContent = this.asked ?
      this.right + " of " + this.asked + " moves right" : "";
  };

  Drill.prototype.start = function () {
    this.key = 0;
    this.played = [];
    this.say("");
    this.walk();
  };

  Drill.prototype.go = function (move) {
    this.played.push(move[1]);
    this.key = move[2];
  };

  Drill.prototype.walk = function () {
    var node = this.data.nodes[this.key];
    while (node && !node.our && node.moves.length) {  // his reply, drawn by his probabilities
      var total = node.moves.reduce(function (sum, m) { return sum + m[3]; }, 0);
      var draw = Math.random() * total, chosen = node.moves[node.moves.length - 1];
      for (var i = 0; i < node.moves.length; i++) {
        draw -= node.moves[i][3];
        if (draw < 0) { chosen = node.moves[i]; break; }
      }
      this.go(chosen);
      node = this.data.nodes[this.key];
    }
    this.draw();
    if (!node || !node.moves.length) {
      this.box.dataset.state = "done";
      this.say((this.box.querySelector(".status").textContent + " The line ends here.").trim(), "");
      return;
    }
    this.box.dataset.state = "ours";
    if (!this.box.querySelector(".status").textContent) { this.say("Your move."); }
  };

  Drill.prototype.play = function (uci) {
    var node = this.data.nodes[this.key];
    if (!node || !node.our || this.box.dataset.state !== "ours") { return; }
    if (!(uci in node.legal)) {
      var promoted = uci + "q";
      if (!(promoted in node.legal)) { this.say("Not a legal move here: " + uci + ".", "bad"); return; }
      uci = promoted;
    }
    var prepared = node.moves.filter(function (m) { return m[0] === uci; })[0];
    this.asked += 1;
    if (prepared) {
      this.right += 1;
      this.say("Right: " + prepared[1] + " is prepared.", "good");
      this.go(prepared);
    } else {
      this.say(node.legal[uci] + " is not prepared; the prepared move is " + node.moves[0][1] + ".", "bad");
      this.box.dataset.mistake = node.legal[uci];
      this.go(node.moves[0]);
    }
    this.walk();
  };

  Drill.prototype.typed = function (text) {
    var node = this.data.nodes[this.key];
    if (!node || !node.our) { return; }
    var clean = text.trim().replace(/[+#!?]+$/, "");
    for (var uci in node.legal) {
      if (uci === clean || node.legal[uci].replace(/[+#]$/, "") === clean) { this.play(uci); return; }
    }
    this.say("Not a legal move here: " + text + ".", "bad");
  };

  Drill.prototype.square = function (event) {
    var svg = this.box.querySelector(".board svg");
    if (!svg) { return; }
    var rect = svg.getBoundingClientRect();
    var file = Math.floor((event.clientX - rect.left) / rect.width * 8);
    var rank = Math.floor((event.clientY - rect.top) / rect.height * 8);
    if (file < 0 || file > 7 || rank < 0 || rank > 7) { return; }
    var name = this.data.flipped ? "hgfedcba"[file] + (rank + 1) : "abcdefgh"[file] + (8 - rank);
    if (this.picked === null) {
      this.picked = name;
      this.box.dataset.picked = name;
      return;
    }
    var from = this.picked;
    this.picked = null;
    delete this.box.dataset.picked;
    if (from !== name) { this.play(from + name); }
  };

  document.querySelectorAll("section.drill").forEach(function (box) {
    var drill = new Drill(box);
    box.querySelector("button.start").addEventListener("click", function () { drill.start(); });
    box.querySelector(".board").addEventListener("click", function (event) { drill.square(event); });
    box.querySelector("input.typed").addEventListener("keydown", function (event) {
      if (event.key === "Enter") { drill.typed(event.target.value); event.target.value = ""; }
    });
  });
})();
