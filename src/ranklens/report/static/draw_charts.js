/* ranklens report: draw every chart of the page from its Vega-Lite specification.
   Each chart is a div of class vl-chart followed by a JSON script element of class vl-spec
   whose data-target attribute names the div. A chart that fails shows its error in its place;
   the others are drawn. When every chart is settled, the html element gets
   data-charts="drawn" and the document a "ranklens:charts" event (for tests and printing). */
(function () {
  "use strict";
  if (typeof vegaEmbed !== "function") { return; }
  var options = { renderer: "svg", actions: false, tooltip: { theme: "light" } };
  var nodes = document.querySelectorAll("script.vl-spec");
  var pending = Array.prototype.map.call(nodes, function (node) {
    var target = document.getElementById(node.getAttribute("data-target"));
    if (!target) { return Promise.resolve(); }
    var failed = function (error) {
      target.classList.add("chart-error");
      target.textContent = "This chart could not be drawn: " + (error && error.message ? error.message : error);
      target.setAttribute("data-drawn", "error");
    };
    try {
      return vegaEmbed(target, JSON.parse(node.textContent), options).then(function () {
        target.setAttribute("data-drawn", "true");
      }, failed);
    } catch (error) {
      failed(error);
      return Promise.resolve();
    }
  });
  Promise.all(pending).then(function () {
    document.documentElement.setAttribute("data-charts", "drawn");
    document.dispatchEvent(new CustomEvent("ranklens:charts"));
  });
})();
