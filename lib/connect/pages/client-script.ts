/**
 * The pages' only script, allowed by its hash. It reads `#portico-data` and
 * - hands a result to the opener, only at the origin the server fixed, then closes the window;
 * - makes Cancel report `cancelled` the same way (or say so, without an opener);
 * - shows the form as busy once sent and refuses a second submission.
 */
export const clientScript = `(function(){
var el=document.getElementById('portico-data');if(!el)return;var d=JSON.parse(el.textContent);
var status=document.getElementById('portico-status');
function say(t){if(status)status.textContent=t;}
function post(m){if(window.opener&&d.origin){try{window.opener.postMessage(m,d.origin);}catch(e){}return true;}return false;}
if(d.result&&post(d.result)){say(d.text.closing);setTimeout(function(){window.close();},600);}
var close=document.getElementById('portico-close');
if(close&&window.opener){close.hidden=false;close.addEventListener('click',function(){window.close();});}
var cancel=document.getElementById('portico-cancel');
if(cancel&&d.cancel)cancel.addEventListener('click',function(){
var f=document.querySelector('form');if(f)f.setAttribute('inert','');cancel.disabled=true;
if(post(d.cancel)){say(d.text.closing);setTimeout(function(){window.close();},300);}else say(d.text.cancelled);});
var form=document.querySelector('form[data-busy-text]');
if(form)form.addEventListener('submit',function(e){
if(form.getAttribute('aria-busy')==='true'){e.preventDefault();return;}
form.setAttribute('aria-busy','true');var b=form.querySelector('button[type=submit]');
if(b){b.classList.add('busy');b.lastChild.textContent=form.getAttribute('data-busy-text');}say(form.getAttribute('data-busy-text'));});
})();`;
