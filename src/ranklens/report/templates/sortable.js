/* ranklens report: sort a data table by clicking (or pressing Enter/Space on) a column header.
   The first click sorts ascending, the next descending; the initial order stays until a header
   is used. Numbers are compared as numbers ("1,234.5", "−0.12", "12%", "[a, b]" by its first
   number); missing values ("–", "—", "n/a", "NaN", empty) always sort last. Rows of a group
   (a <tr class="group"> heading) are sorted within the group. */
(function () {
  "use strict";
  var MISSING = /^(?:[–—-]|n\/a|nan|)$/i;
  function cellText(row, index) {
    var cell = row.cells[index];
    if (!cell) { return ""; }
    var sub = cell.querySelector(".sub");
    var text = cell.textContent;
    if (sub) { text = text.slice(0, text.length - sub.textContent.length); }
    return text.trim();
  }
  function key(text) {
    if (MISSING.test(text)) { return { missing: true }; }
    var normal = text.replace(/[−–]/g, "-").replace(/,/g, "").replace(/\u00a0/g, " ");
    var match = normal.match(/-?\d+(?:\.\d+)?(?:e[-+]?\d+)?/i);
    var starts = match && normal.slice(0, match.index).replace(/[\s\[(≈<>≤≥~$€£¥+]/g, "") === "";
    if (match && starts) { return { number: parseFloat(match[0]) }; }
    return { text: text.toLowerCase() };
  }
  function compare(a, b) {
    if (a.missing || b.missing) { return (a.missing ? 1 : 0) - (b.missing ? 1 : 0); }
    if (a.number !== undefined && b.number !== undefined) { return a.number - b.number; }
    if (a.number !== undefined) { return -1; }
    if (b.number !== undefined) { return 1; }
    return a.text < b.text ? -1 : a.text > b.text ? 1 : 0;
  }
  function sortBy(table, index, th) {
    var body = table.tBodies[0];
    var descending = th.getAttribute("aria-sort") === "ascending";
    Array.prototype.forEach.call(table.tHead.rows[0].cells, function (other) {
      other.removeAttribute("aria-sort");
    });
    th.setAttribute("aria-sort", descending ? "descending" : "ascending");
    var groups = [[]];
    Array.prototype.forEach.call(body.rows, function (row) {
      if (row.classList.contains("group")) { groups.push([row]); } else { groups[groups.length - 1].push(row); }
    });
    groups.forEach(function (rows) {
      var head = rows.length && rows[0].classList.contains("group") ? rows.shift() : null;
      var keyed = rows.map(function (row, position) {
        return { row: row, key: key(cellText(row, index)), position: position };
      });
      keyed.sort(function (a, b) {
        var order = compare(a.key, b.key);
        if (descending && !a.key.missing && !b.key.missing) { order = -order; }
        return order || a.position - b.position;
      });
      if (head) { body.appendChild(head); }
      keyed.forEach(function (item) { body.appendChild(item.row); });
    });
  }
  Array.prototype.forEach.call(document.querySelectorAll("table"), function (table) {
    if (!table.tHead || !table.tBodies.length || table.tBodies[0].rows.length < 2) { return; }
    Array.prototype.forEach.call(table.tHead.rows[0].cells, function (th, index) {
      var button = document.createElement("button");
      button.type = "button";
      button.className = "sort";
      button.title = "Sort by this column";
      while (th.firstChild) { button.appendChild(th.firstChild); }
      th.appendChild(button);
      button.addEventListener("click", function () { sortBy(table, index, th); });
    });
  });
})();
