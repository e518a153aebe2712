/* k10s report: draw every plot from its JSON block (data only, parsed with JSON.parse). */
(function () {
  "use strict";
  var t0 = performance.now();
  var config = { displaylogo: false, responsive: true, showLink: false, showSendToCloud: false,
                 showEditInChartStudio: false, modeBarButtonsToRemove: ["sendDataToCloud", "toImage"] };
  var blocks = document.querySelectorAll('script[type="application/json"][data-plot]');
  var pending = [];
  function draw(block) {
    var target = document.getElementById(block.getAttribute("data-plot"));
    if (!target) { return Promise.resolve(); }
    var fig = JSON.parse(block.textContent);
    return Plotly.newPlot(target, fig.data || [], fig.layout || {}, config);
  }
  for (var i = 0; i < blocks.length; i++) {
    pending.push(draw(blocks[i]));
  }
  Promise.all(pending).then(function () {
    window.__k10sPlots = pending.length;
    window.__k10sTiming = { scripts_ms: t0, plots_ms: performance.now() - t0 };
    window.__k10sReady = true;
  }, function (err) {
    console.error("k10s report: a plot could not be drawn: " + err);
    window.__k10sReady = true;
  });
  window.addEventListener("beforeprint", function () {
    var plots = document.querySelectorAll(".js-plotly-plot");
    for (var j = 0; j < plots.length; j++) { Plotly.Plots.resize(plots[j]); }
  });
})();
