// The dossier page: clicking a move shows its position's board and his replies. No library.
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
})();
