/* On every page: `/` goes to the search box, each section heading gets a link to itself, and each
   block of code a Copy button. Plain script, no network: works from file:// too. */
(function () {
  var searchPage = document.currentScript && document.currentScript.getAttribute("data-search");

  document.addEventListener("keydown", function (event) {
    if (event.key !== "/" || event.ctrlKey || event.metaKey || event.altKey) return;
    var target = event.target, tag = target && target.tagName;
    if (tag === "INPUT" || tag === "TEXTAREA" || tag === "SELECT" || (target && target.isContentEditable)) return;
    event.preventDefault();
    var box = document.getElementById("q");
    if (box) { box.focus(); box.select(); } else if (searchPage) { location.href = searchPage; }
  });

  function slug(text) { return text.toLowerCase().replace(/[^a-z0-9]+/g, "-").replace(/^-|-$/g, "") || "section"; }

  Array.prototype.forEach.call(document.querySelectorAll("main h2, main h3"), function (heading) {
    if (!heading.id) {
      var base = slug(heading.textContent), id = base, n = 1;
      while (document.getElementById(id)) id = base + "-" + (++n);
      heading.id = id;
    }
    var link = document.createElement("a");
    link.className = "anchor"; link.href = "#" + heading.id; link.textContent = "#";
    link.setAttribute("aria-label", "Link to this section");
    heading.appendChild(document.createTextNode(" "));
    heading.appendChild(link);
  });
  if (location.hash) {  // the ids above did not exist when the browser looked for the fragment
    var wanted = document.getElementById(decodeURIComponent(location.hash.slice(1)));
    if (wanted) wanted.scrollIntoView();
  }

  function textOf(block) {  // without the line numbers of a highlighted excerpt
    var copy = block.cloneNode(true);
    Array.prototype.forEach.call(copy.querySelectorAll(".linenos"), function (n) { n.remove(); });
    return copy.textContent.replace(/\n$/, "");
  }

  function copied(button, ok) {
    button.textContent = ok ? "Copied" : "Select and copy";
    setTimeout(function () { button.textContent = "Copy"; }, 1500);
  }

  function copy(text, button) {
    if (navigator.clipboard && window.isSecureContext) {
      navigator.clipboard.writeText(text).then(function () { copied(button, true); }, function () { copied(button, false); });
      return;
    }
    var area = document.createElement("textarea");
    area.value = text; area.setAttribute("readonly", ""); area.style.position = "fixed"; area.style.opacity = "0";
    document.body.appendChild(area); area.select();
    var ok = false;
    try { ok = document.execCommand("copy"); } catch (e) { ok = false; }
    area.remove();
    copied(button, ok);
  }

  Array.prototype.forEach.call(document.querySelectorAll("main pre"), function (block) {
    if (block.parentNode.closest && block.parentNode.closest("pre")) return;
    var frame = document.createElement("div"), button = document.createElement("button");
    frame.className = "copyable";
    button.type = "button"; button.className = "copy"; button.textContent = "Copy";
    button.setAttribute("aria-label", "Copy this block");
    block.parentNode.insertBefore(frame, block);
    frame.appendChild(block); frame.appendChild(button);
    button.addEventListener("click", function () { copy(textOf(block), button); });
  });
})();
