// claimgraph viewer: the little the pages need beyond HTML. Served from the package, never a CDN.
"use strict";

// The time-travel box shows an ISO instant a person can read (and edit), exact to the ms.
function instantText(ms) {
  return new Date(ms).toISOString().replace(".000Z", "Z");
}

function instantLabel(ms) {
  const iso = new Date(ms).toISOString();
  return iso.slice(0, 10) + " " + iso.slice(11, 16) + " UTC";
}

// Time travel: the slider steps through the timeline's instants; each step asks the server
// for what was believed then and swaps the list in place (the form still works without us).
function setUpTimeline(form) {
  const slider = document.getElementById("asof-slider");
  const label = document.getElementById("asof-label");
  const atField = document.getElementById("asof-at");
  const results = document.getElementById("asof-results");
  const instants = JSON.parse(form.dataset.instants);
  const mark = document.getElementById("asof-mark");
  const width = document.getElementById("asof-spark").viewBox.baseVal.width;
  let asked = 0;
  slider.addEventListener("input", () => {
    const index = Number(slider.value);
    label.textContent = instantLabel(instants[index]);
    // The mark on the sparkline follows the thumb: the line's stop for this instant
    // (timeline.spark_x), whose count is the one the list below will show.
    const x = Math.round(index * width / Math.max(1, instants.length - 1) * 10) / 10;
    mark.setAttribute("x1", x);
    mark.setAttribute("x2", x);
  });
  slider.addEventListener("change", async () => {
    const at = instants[Number(slider.value)];
    atField.value = instantText(at);
    const params = new URLSearchParams(new FormData(form));
    const ticket = ++asked;
    form.classList.add("loading");
    const answer = await fetch(form.dataset.fragment + "?" + params + "&part=facts");
    if (ticket !== asked) return;  // a later move of the slider wins
    form.classList.remove("loading");
    if (answer.ok) {
      results.innerHTML = await answer.text();
      history.replaceState(null, "", form.action + "?" + params);
    }
  });
}

// Filters: a changed menu applies at once.
function setUpFilters(form) {
  for (const menu of form.querySelectorAll("select")) {
    menu.addEventListener("change", () => form.submit());
  }
}

document.addEventListener("DOMContentLoaded", () => {
  const timeline = document.getElementById("asof-form");
  if (timeline) setUpTimeline(timeline);
  const filters = document.getElementById("filters");
  if (filters) setUpFilters(filters);
});
